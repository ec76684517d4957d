# policy
libairlock_a_SOURCES += \
	policy/sandbox_defaults.c policy/sandbox_defaults.h \
	policy/seccomp_policy.c policy/seccomp_policy.h \
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
