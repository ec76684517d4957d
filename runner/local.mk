# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runner
libairlock_a_SOURCES += runner/wait.c
libairlock_a_SOURCES += \
	runner/runner.c runner/runner.h runner/runner_int.h \
	runner/child.c runner/landlock.c runner/seccomp.c runner/cgroup.c \
	runner/netns.c \
	runner/seatbelt_exec.c runner/seatbelt_exec.h \
	runner/denials.c runner/denials.h runner/fsdenials.c runner/fsdenials.h

# Escape tests: each attack is tried for real from inside a runner.
check_PROGRAMS += tests/escape/probe
tests_escape_probe_SOURCES = tests/escape/probe.c
# The probe is the attacker: no sanitizer runtime (its SIGSEGV/SIGSYS
# handlers would turn the kernel's answer into an exit status).
tests_escape_probe_CFLAGS = -Wall -Wextra -Werror -O2 $(SECCOMP_CFLAGS)
tests_escape_probe_LDFLAGS =
tests_escape_probe_LDADD = $(SECCOMP_LIBS)
TESTS += tests/escape/sandbox_escapes.sh tests/escape/resource_limits.sh \
	tests/escape/agent_escapes.sh \
	tests/integration/exec_runs_commands.sh
EXTRA_DIST += tests/escape/sandbox_escapes.sh tests/escape/resource_limits.sh \
	tests/escape/agent_escapes.sh \
	tests/integration/exec_runs_commands.sh

check_PROGRAMS += tests/unit/test_runner
TESTS += tests/unit/test_runner
tests_unit_test_runner_CFLAGS = $(unit_cflags)
tests_unit_test_runner_LDADD = $(unit_ldadd)
TESTS += tests/integration/exec_manifest_policy.sh
EXTRA_DIST += tests/integration/exec_manifest_policy.sh

check_PROGRAMS += tests/unit/test_runner_denials
TESTS += tests/unit/test_runner_denials
tests_unit_test_runner_denials_CFLAGS = $(unit_cflags)
tests_unit_test_runner_denials_LDADD = $(unit_ldadd)
TESTS += tests/integration/sandbox_denials.sh
EXTRA_DIST += tests/integration/sandbox_denials.sh
