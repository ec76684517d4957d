# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
libairlock_a_SOURCES += \
	broker/actions.c \
	broker/approval.c broker/approval.h \
	broker/approvalflow.c broker/approvalflow.h \
	broker/runcall.c broker/runcall.h \
	broker/notify.c broker/notify.h \
	broker/broker.c broker/broker.h broker/broker_int.h \
	broker/call.c broker/call.h \
	broker/conn.c broker/conn.h broker/status.c broker/status.h \
	broker/cancel.c broker/cancel.h \
	broker/result.c broker/result.h \
	broker/egress.c broker/egress.h \
	broker/denials.c broker/denials.h broker/escalate.c broker/escalate.h \
	broker/jsonrpc.c broker/jsonrpc.h \
	broker/jsonout.c broker/jsonout.h \
	broker/ledger.c broker/ledger.h \
	broker/loop.c broker/loop.h \
	broker/patchjail.c broker/patchjail.h \
	broker/patchland.c broker/patchland.h \
	broker/wswrite.c broker/wswrite.h \
	broker/applyjournal.c broker/applyjournal.h \
	broker/changeset.c broker/changeset.h \
	broker/landjob.c broker/landjob.h \
	broker/viewfreeze.c broker/viewfreeze.h \
	broker/wsdigest.c broker/wsdigest.h \
	broker/wsindex.c broker/wsindex.h \
	broker/wsscan.c broker/wsscan.h \
	broker/wslinks.c broker/wslinks.h \
	broker/wsjob.c broker/wsjob.h \
	broker/pins.c broker/pins.h \
	broker/reqsig.c broker/reqsig.h
# broker
libairlock_a_SOURCES += \
	broker/audit.c broker/audit.h \
	broker/audit_fields.c broker/audit_fields.h \
	broker/audit_ship.c broker/audit_ship.h \
	broker/audit_verify.c broker/audit_verify.h \
	broker/redact.c broker/redact.h \
	broker/secrets.c broker/secrets.h
# The audit and secret subcommands (owned by the audit module).
libairlock_a_SOURCES += supervisor/cmd_audit.c supervisor/cmd_secret.c

# Tests of the audit log, the credential store and redaction.
check_PROGRAMS += tests/unit/audit_writer
tests_unit_audit_writer_CFLAGS = $(AM_CFLAGS)
tests_unit_audit_writer_LDADD = libairlock.a $(AIRLOCK_LIBS)
TESTS += tests/integration/audit_verify.sh
EXTRA_DIST += tests/integration/audit_verify.sh
TESTS += tests/integration/audit_batch.sh
EXTRA_DIST += tests/integration/audit_batch.sh
check_PROGRAMS += tests/unit/test_redact tests/unit/test_audit tests/unit/test_secrets
TESTS += tests/unit/test_redact tests/unit/test_audit tests/unit/test_secrets
tests_unit_test_redact_CFLAGS = $(unit_cflags)
tests_unit_test_redact_LDADD = $(unit_ldadd)
tests_unit_test_audit_CFLAGS = $(unit_cflags)
tests_unit_test_audit_LDADD = $(unit_ldadd)
tests_unit_test_secrets_CFLAGS = $(unit_cflags)
tests_unit_test_secrets_LDADD = $(unit_ldadd)
TESTS += tests/integration/secret_store.sh
EXTRA_DIST += tests/integration/secret_store.sh

# Broker-level integration tests of credentials and fail-closed auditing.
TESTS += tests/integration/secrets_redaction.sh tests/integration/audit_fail_closed.sh
EXTRA_DIST += tests/integration/secrets_redaction.sh tests/integration/audit_fail_closed.sh
TESTS += tests/integration/egress_wired.sh
EXTRA_DIST += tests/integration/egress_wired.sh
TESTS += tests/integration/contrib_manifests.sh
EXTRA_DIST += tests/integration/contrib_manifests.sh

check_PROGRAMS += tests/unit/test_jsonrpc tests/unit/test_ledger
TESTS += tests/unit/test_jsonrpc tests/unit/test_ledger
check_PROGRAMS += tests/unit/test_jsonout
TESTS += tests/unit/test_jsonout
tests_unit_test_jsonout_CFLAGS = $(unit_cflags)
tests_unit_test_jsonout_LDADD = $(unit_ldadd)
tests_unit_test_jsonrpc_CFLAGS = $(unit_cflags)
tests_unit_test_jsonrpc_LDADD = $(unit_ldadd)
tests_unit_test_ledger_CFLAGS = $(unit_cflags)
tests_unit_test_ledger_LDADD = $(unit_ldadd)
TESTS += tests/integration/approval_notify.sh
EXTRA_DIST += tests/integration/approval_notify.sh
# harden: the broker's own seccomp filter (issue 6).
libairlock_a_SOURCES += broker/selfsandbox.c broker/selfsandbox.h
check_PROGRAMS += tests/unit/test_selfsandbox
TESTS += tests/unit/test_selfsandbox
tests_unit_test_selfsandbox_CFLAGS = $(unit_cflags)
tests_unit_test_selfsandbox_LDADD = $(unit_ldadd)
# The output layer (issue 13): excerpts within a cap, readable artifacts.
libairlock_a_SOURCES += broker/excerpt.c broker/excerpt.h \
	broker/jobs.c broker/jobs.h broker/jobtext.c broker/jobtext.h \
	broker/fwatch.c broker/fwatch.h \
	broker/artifact.c broker/artifact.h \
	broker/output.c broker/output.h
check_PROGRAMS += tests/unit/test_excerpt
TESTS += tests/unit/test_excerpt
tests_unit_test_excerpt_CFLAGS = $(unit_cflags)
tests_unit_test_excerpt_LDADD = $(unit_ldadd)
# Pinned code (issue 11).
check_PROGRAMS += tests/unit/test_pins
TESTS += tests/unit/test_pins
tests_unit_test_pins_CFLAGS = $(unit_cflags)
tests_unit_test_pins_LDADD = $(unit_ldadd)
# approvals_digest binds a decision to the whole action (issue 20).
check_PROGRAMS += tests/unit/test_approval_digest
TESTS += tests/unit/test_approval_digest
tests_unit_test_approval_digest_CFLAGS = $(unit_cflags)
tests_unit_test_approval_digest_LDADD = $(unit_ldadd)
# Copy-on-write agent sessions: the broker works on the session's view.
libairlock_a_SOURCES += broker/cowview.c broker/cowview.h
# Background jobs: the new-output cursor and the line rules (issue 13).
check_PROGRAMS += tests/unit/test_jobtext
TESTS += tests/unit/test_jobtext
tests_unit_test_jobtext_CFLAGS = $(unit_cflags)
tests_unit_test_jobtext_LDADD = $(unit_ldadd)
# The key-substitution forgery of an audit log, for audit_keys.sh.
check_PROGRAMS += tests/audit_forge
tests_audit_forge_SOURCES = tests/audit_forge.c
tests_audit_forge_LDADD = libairlock.a $(AIRLOCK_LIBS)
check_PROGRAMS += tests/unit/test_wsindex
TESTS += tests/unit/test_wsindex
tests_unit_test_wsindex_CFLAGS = $(unit_cflags)
tests_unit_test_wsindex_LDADD = $(unit_ldadd)
# --- shellgate: shell rules in the request path (issue 21) ---
libairlock_a_SOURCES += broker/shellgate.c broker/shellgate.h
TESTS += tests/integration/shell_rules.sh
EXTRA_DIST += tests/integration/shell_rules.sh
TESTS += tests/integration/shell_rules_bash.sh
EXTRA_DIST += tests/integration/shell_rules_bash.sh
TESTS += tests/integration/shell_rules_bash_heredoc.sh
EXTRA_DIST += tests/integration/shell_rules_bash_heredoc.sh
TESTS += tests/integration/shell_rules_bash_varredir.sh
EXTRA_DIST += tests/integration/shell_rules_bash_varredir.sh
TESTS += tests/integration/shell_rules_bash_extglob.sh
EXTRA_DIST += tests/integration/shell_rules_bash_extglob.sh
TESTS += tests/integration/shell_rules_names.sh
EXTRA_DIST += tests/integration/shell_rules_names.sh
TESTS += tests/integration/shell_rules_splice.sh
EXTRA_DIST += tests/integration/shell_rules_splice.sh
TESTS += tests/integration/shell_rules_spellings.sh
EXTRA_DIST += tests/integration/shell_rules_spellings.sh
TESTS += tests/integration/shell_rules_readers.sh
EXTRA_DIST += tests/integration/shell_rules_readers.sh
TESTS += tests/integration/shell_rules_find_links.sh
EXTRA_DIST += tests/integration/shell_rules_find_links.sh
TESTS += tests/integration/shell_rules_broad.sh
EXTRA_DIST += tests/integration/shell_rules_broad.sh
TESTS += tests/integration/shell_rules_removals.sh
TESTS += tests/integration/shell_rules_removals2.sh
TESTS += tests/integration/shell_rules_runs_later.sh
EXTRA_DIST += tests/integration/shell_rules_removals.sh
EXTRA_DIST += tests/integration/shell_rules_removals2.sh
EXTRA_DIST += tests/integration/shell_rules_runs_later.sh
TESTS += tests/integration/shell_rules_loops.sh
EXTRA_DIST += tests/integration/shell_rules_loops.sh
TESTS += tests/integration/shell_rules_archives.sh
EXTRA_DIST += tests/integration/shell_rules_archives.sh
# --- end shellgate ---

# --- escalation: denial records and one-call escalation (issue 18) ---
TESTS += tests/integration/escalation.sh
EXTRA_DIST += tests/integration/escalation.sh
TESTS += tests/integration/escalation_swap.sh
EXTRA_DIST += tests/integration/escalation_swap.sh
TESTS += tests/integration/escalation_startup.sh
EXTRA_DIST += tests/integration/escalation_startup.sh
TESTS += tests/integration/escalation_holds.sh
EXTRA_DIST += tests/integration/escalation_holds.sh
TESTS += tests/integration/approval_head_forged.sh
EXTRA_DIST += tests/integration/approval_head_forged.sh
TESTS += tests/integration/escalation_retarget.sh
EXTRA_DIST += tests/integration/escalation_retarget.sh
TESTS += tests/integration/suggest_link.sh
EXTRA_DIST += tests/integration/suggest_link.sh
TESTS += tests/integration/suggest_comment.sh
EXTRA_DIST += tests/integration/suggest_comment.sh
TESTS += tests/integration/suggest_socket.sh
EXTRA_DIST += tests/integration/suggest_socket.sh
TESTS += tests/integration/suggest_syscall.sh
EXTRA_DIST += tests/integration/suggest_syscall.sh
check_PROGRAMS += tests/unit/test_broker_denials
TESTS += tests/unit/test_broker_denials
tests_unit_test_broker_denials_CFLAGS = $(unit_cflags)
tests_unit_test_broker_denials_LDADD = $(unit_ldadd)
# --- end escalation ---

# egress_free() with the proxy stuck on a full event pipe, for real.
check_PROGRAMS += tests/unit/test_egress
TESTS += tests/unit/test_egress
tests_unit_test_egress_SOURCES = tests/unit/test_egress.c \
	tests/proxy_testsrv.c tests/proxy_testsrv.h
tests_unit_test_egress_CFLAGS = $(unit_cflags)
tests_unit_test_egress_LDADD = $(unit_ldadd)
