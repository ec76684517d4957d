# proxy: the egress proxy (allowlist rules, relay, spawn/fd passing)
libairlock_a_SOURCES += \
	proxy/rules.c proxy/rules.h

check_PROGRAMS += tests/unit/test_proxy_rules
TESTS += tests/unit/test_proxy_rules
tests_unit_test_proxy_rules_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_rules_LDADD = $(unit_ldadd)
