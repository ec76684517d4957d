# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# runner
libairlock_a_SOURCES += runner/wait.c
libairlock_a_SOURCES += \
	runner/runner.c runner/runner.h runner/runner_int.h \
	runner/child.c runner/landlock.c runner/seccomp.c runner/cgroup.c \
	runner/netns.c \
	runner/seatbelt_exec.c runner/seatbelt_exec.h \
	runner/denials.c runner/denials.h runner/fsdenials.c runner/fsdenials.h \
	runner/denywatch.c runner/denywatch.h

# Escape tests: each attack is tried for real from inside a runner.
check_PROGRAMS += tests/escape/probe
tests_escape_probe_SOURCES = tests/escape/probe.c
# The probe is the attacker: no sanitizer runtime (its SIGSEGV/SIGSYS
# handlers would turn the kernel's answer into an exit status).
tests_escape_probe_CFLAGS = -Wall -Wextra -Werror -O2 $(SECCOMP_CFLAGS)
tests_escape_probe_LDFLAGS =
tests_escape_probe_LDADD = $(SECCOMP_LIBS)
TESTS += tests/escape/sandbox_escapes.sh tests/escape/resource_limits.sh \
	tests/escape/agent_escapes.sh tests/escape/newer_syscalls.sh \
	tests/escape/landlock_abi.sh \
	tests/integration/exec_runs_commands.sh
EXTRA_DIST += tests/escape/sandbox_escapes.sh tests/escape/resource_limits.sh \
	tests/escape/agent_escapes.sh tests/escape/newer_syscalls.sh \
	tests/escape/landlock_abi.sh \
	tests/integration/exec_runs_commands.sh

check_PROGRAMS += tests/unit/test_runner
TESTS += tests/unit/test_runner
tests_unit_test_runner_CFLAGS = $(unit_cflags)
tests_unit_test_runner_LDADD = $(unit_ldadd)
TESTS += tests/integration/exec_manifest_policy.sh
EXTRA_DIST += tests/integration/exec_manifest_policy.sh
TESTS += tests/integration/deny_read_alias.sh
EXTRA_DIST += tests/integration/deny_read_alias.sh
TESTS += tests/integration/deny_read_absent.sh
EXTRA_DIST += tests/integration/deny_read_absent.sh
TESTS += tests/integration/deny_read_live_bind.sh
EXTRA_DIST += tests/integration/deny_read_live_bind.sh

check_PROGRAMS += tests/unit/test_runner_denials
TESTS += tests/unit/test_runner_denials
tests_unit_test_runner_denials_CFLAGS = $(unit_cflags)
tests_unit_test_runner_denials_LDADD = $(unit_ldadd)
TESTS += tests/integration/sandbox_denials.sh
EXTRA_DIST += tests/integration/sandbox_denials.sh
TESTS += tests/integration/denial_existence.sh
EXTRA_DIST += tests/integration/denial_existence.sh

# The runner's seccomp programs for the default and strict profiles,
# compiled at build time by tools/seccomp_gen (from runner/seccomp.c
# itself, built without them) and used when the architecture and the
# libseccomp version match (runner/seccomp.c).  Never committed.
noinst_PROGRAMS += tools/seccomp_gen
tools_seccomp_gen_SOURCES = tools/seccomp_gen.c runner/seccomp.c \
	policy/seccomp_policy.c policy/syscalls.c common/strlist.c
tools_seccomp_gen_CPPFLAGS = $(AM_CPPFLAGS) -DAIRLOCK_SECCOMP_GEN
tools_seccomp_gen_LDADD = $(DEPS_LIBS)
BUILT_SOURCES += runner/seccomp_prebuilt.h
CLEANFILES += runner/seccomp_prebuilt.h
nodist_libairlock_a_SOURCES += runner/seccomp_prebuilt.h

runner/seccomp_prebuilt.h: tools/seccomp_gen$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) runner && \
	    ./tools/seccomp_gen$(EXEEXT) > $@.tmp && mv $@.tmp $@
runner/seccomp.$(OBJEXT): runner/seccomp_prebuilt.h
