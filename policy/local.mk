# policy

# --- diff: unified-diff engine for apply_patch (branch diff) ---
libairlock_a_SOURCES += policy/diff.c policy/diff.h
check_PROGRAMS += tests/unit/test_diff
TESTS += tests/unit/test_diff
tests_unit_test_diff_CFLAGS = $(unit_cflags)
tests_unit_test_diff_LDADD = $(unit_ldadd)
EXTRA_DIST += fuzz/fuzz_diff.c fuzz/corpus/diff docs/PATCHES.md
# --- end diff ---
