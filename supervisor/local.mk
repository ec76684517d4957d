# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
libairlock_a_SOURCES += \
	supervisor/commands.h \
	supervisor/cmd_approve.c \
	supervisor/cmd_approver.c \
	supervisor/cmd_connect.c \
	supervisor/cmd_patch_jail.c \
	supervisor/agent_socket.c supervisor/agent_socket.h \
	supervisor/cmd_run.c \
	supervisor/cmd_serve.c \
	supervisor/cmd_trace.c \
	supervisor/service.c supervisor/service.h \
	supervisor/session.c supervisor/session.h \
	supervisor/hostkey.c supervisor/hostkey.h \
	supervisor/trustkeys.c supervisor/trustkeys.h \
	supervisor/cmd_sessions.c supervisor/cmd_paths.c supervisor/cmd_suggest.c \
	supervisor/setup.c supervisor/setup.h \
	supervisor/signals.c supervisor/signals.h
libairlock_a_SOURCES += supervisor/cmd_exec.c supervisor/cmd_profile.c
# The agent command as typed on the host, and what it needs bound.
libairlock_a_SOURCES += supervisor/agent_bin.c supervisor/agent_bin.h
check_PROGRAMS += tests/unit/test_agent_bin
TESTS += tests/unit/test_agent_bin
tests_unit_test_agent_bin_CFLAGS = $(unit_cflags)
tests_unit_test_agent_bin_LDADD = $(unit_ldadd)
# Per-run overrides of the policy: --allow-host, --env, --ro, --rw.
libairlock_a_SOURCES += supervisor/overrides.c supervisor/overrides.h
libairlock_a_SOURCES += supervisor/cli.c supervisor/cli.h
libairlock_a_SOURCES += supervisor/exec_audit.c supervisor/exec_audit.h \
	supervisor/exec_spare.c supervisor/exec_spare.h
# Copy-on-write agent sessions: airlock run --cow, diff, commit, discard.
libairlock_a_SOURCES += supervisor/cowsession.c supervisor/cowsession.h \
	supervisor/cowrun.c supervisor/cowrun.h \
	supervisor/cowdiff.c supervisor/cowdiff.h supervisor/cmd_cow.c
check_PROGRAMS += tests/unit/test_cowsession
TESTS += tests/unit/test_cowsession
tests_unit_test_cowsession_CFLAGS = $(unit_cflags)
tests_unit_test_cowsession_LDADD = $(unit_ldadd)
