# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# policy

# --- diff: unified-diff engine for apply_patch (branch diff) ---
libairlock_a_SOURCES += policy/diff.c policy/diff.h
check_PROGRAMS += tests/unit/test_diff
TESTS += tests/unit/test_diff
tests_unit_test_diff_CFLAGS = $(unit_cflags)
tests_unit_test_diff_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_sensitive
TESTS += tests/unit/test_sensitive
tests_unit_test_sensitive_CFLAGS = $(unit_cflags)
tests_unit_test_sensitive_LDADD = $(unit_ldadd)
EXTRA_DIST += fuzz/fuzz_diff.c fuzz/corpus/diff docs/PATCHES.md
# --- end diff ---
libairlock_a_SOURCES += \
	policy/manifest.c policy/manifest.h policy/manifest_yaml.c \
	policy/manifest_print.c \
	policy/manifest_sig.c policy/manifest_sig.h \
	policy/manifest_limits.c policy/manifest_limits.h \
	policy/manifest_escalation.c policy/manifest_tools.c \
	policy/path.c policy/path.h \
	policy/types.c policy/types.h \
	policy/vcsdirs.c policy/vcsdirs.h \
	policy/githooks.c policy/githooks.h \
	policy/lefthook.c policy/lefthook.h \
	policy/hookplants.c policy/hookplants.h \
	supervisor/cmd_check.c

# The built-in default manifest is contrib/manifests/default.yaml, turned
# into a C byte array at build time (never committed).
nodist_libairlock_a_SOURCES += policy/default_manifest.c
BUILT_SOURCES += policy/default_manifest.c
CLEANFILES += policy/default_manifest.c
EXTRA_DIST += contrib/manifests/default.yaml

policy/default_manifest.c: $(srcdir)/contrib/manifests/default.yaml $(srcdir)/policy/local.mk
	$(AM_V_GEN)$(MKDIR_P) policy && { \
	  echo '/* Generated from contrib/manifests/default.yaml: do not edit. */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const char airlock_default_manifest[];'; \
	  echo 'extern const size_t airlock_default_manifest_len;'; \
	  echo 'const char airlock_default_manifest[] = {'; \
	  od -An -v -tx1 < $(srcdir)/contrib/manifests/default.yaml | \
	    sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0x00 };'; \
	  echo 'const size_t airlock_default_manifest_len ='; \
	  echo '    sizeof(airlock_default_manifest) - 1;'; \
	} > $@.tmp && mv $@.tmp $@

check_PROGRAMS += tests/unit/test_types tests/unit/test_manifest tests/unit/test_path
TESTS += tests/unit/test_types tests/unit/test_manifest tests/unit/test_path
tests_unit_test_types_CFLAGS = $(unit_cflags)
tests_unit_test_types_LDADD = $(unit_ldadd)
tests_unit_test_manifest_CFLAGS = $(unit_cflags) -DGOLDEN_DIR='"$(abs_top_srcdir)/tests/golden"'
tests_unit_test_manifest_LDADD = $(unit_ldadd)
tests_unit_test_path_CFLAGS = $(unit_cflags)
tests_unit_test_path_LDADD = $(unit_ldadd) -lpthread

TESTS += tests/integration/check_golden.sh
EXTRA_DIST += tests/integration/check_golden.sh tests/golden
libairlock_a_SOURCES += \
	policy/sandbox_defaults.c policy/sandbox_defaults.h \
	policy/seccomp_policy.c policy/seccomp_policy.h \
	policy/syscalls.c policy/syscalls.h \
	policy/seatbelt.c policy/seatbelt.h

check_PROGRAMS += tests/unit/test_seccomp_policy tests/unit/test_sandbox_defaults \
	tests/unit/test_seatbelt
TESTS += tests/unit/test_seccomp_policy tests/unit/test_sandbox_defaults \
	tests/unit/test_seatbelt
tests_unit_test_seccomp_policy_CFLAGS = $(unit_cflags)
tests_unit_test_seccomp_policy_LDADD = $(unit_ldadd)
tests_unit_test_sandbox_defaults_CFLAGS = $(unit_cflags)
tests_unit_test_sandbox_defaults_LDADD = $(unit_ldadd)
tests_unit_test_seatbelt_CFLAGS = $(unit_cflags) -DGOLDEN_DIR='"$(abs_top_srcdir)/tests/golden"'
tests_unit_test_seatbelt_LDADD = $(unit_ldadd)
EXTRA_DIST += tests/golden

# Benchmark of path resolution (docs/PERFORMANCE.md, section "policy").
noinst_PROGRAMS += bench/bench_path
bench_bench_path_LDADD = libairlock.a $(AIRLOCK_LIBS)
# --- writepolicy: the rules every workspace write obeys (issue 12) ---
libairlock_a_SOURCES += policy/writepolicy.c policy/writepolicy.h
check_PROGRAMS += tests/unit/test_githooks
TESTS += tests/unit/test_githooks
tests_unit_test_githooks_CFLAGS = $(unit_cflags)
tests_unit_test_githooks_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_hookplants
TESTS += tests/unit/test_hookplants
tests_unit_test_hookplants_CFLAGS = $(unit_cflags)
tests_unit_test_hookplants_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_writepolicy
TESTS += tests/unit/test_writepolicy
tests_unit_test_writepolicy_CFLAGS = $(unit_cflags)
tests_unit_test_writepolicy_LDADD = $(unit_ldadd)
# --- end writepolicy ---
# --- shell rules: allow/ask/deny for exec command strings (issue 21) ---
libairlock_a_SOURCES += policy/shparse.c policy/shparse.h \
	policy/shrules.c policy/shrules.h \
	policy/manifest_rules.c policy/manifest_int.h
check_PROGRAMS += tests/unit/test_shrules
TESTS += tests/unit/test_shrules
tests_unit_test_shrules_CFLAGS = $(unit_cflags) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_shrules_LDADD = $(unit_ldadd)
EXTRA_DIST += contrib/manifests/shell-rules.yaml
noinst_PROGRAMS += bench/bench_shrules
bench_bench_shrules_LDADD = libairlock.a $(AIRLOCK_LIBS)
# --- end shell rules ---

# --- suggest: denials -> manifest changes, and the YAML text editor ---
libairlock_a_SOURCES += policy/yamledit.c policy/yamledit.h \
	policy/sensitive.c policy/sensitive.h \
	policy/suggest.c policy/suggest.h \
	policy/udiff.c policy/udiff.h
check_PROGRAMS += tests/unit/test_yamledit tests/unit/test_suggest
TESTS += tests/unit/test_yamledit tests/unit/test_suggest
tests_unit_test_yamledit_CFLAGS = $(unit_cflags)
tests_unit_test_yamledit_LDADD = $(unit_ldadd)
tests_unit_test_suggest_CFLAGS = $(unit_cflags)
tests_unit_test_suggest_LDADD = $(unit_ldadd)
TESTS += tests/suggest/suggest.sh
EXTRA_DIST += tests/suggest/suggest.sh tests/suggest/layers.yaml \
	tests/suggest/layers.diff tests/suggest/network.diff \
	tests/suggest/network.applied.yaml tests/suggest/runner.diff
# --- end suggest ---

check_PROGRAMS += tests/unit/test_lefthook
TESTS += tests/unit/test_lefthook
tests_unit_test_lefthook_CFLAGS = $(unit_cflags)
tests_unit_test_lefthook_LDADD = $(unit_ldadd)
