# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# proxy: the egress proxy (allowlist rules, relay loop, spawn and fd passing)
libairlock_a_SOURCES += \
	proxy/rules.c proxy/rules.h \
	proxy/http.c proxy/http.h \
	proxy/socks.c proxy/socks.h \
	proxy/tls.c proxy/tls.h \
	proxy/proxy.c proxy/proxy.h \
	proxy/ipc.c proxy/ipc.h \
	proxy/resolver.c proxy/resolver.h \
	supervisor/cmd_proxy.c

check_PROGRAMS += tests/unit/test_proxy_rules
TESTS += tests/unit/test_proxy_rules
tests_unit_test_proxy_rules_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_rules_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_proxy_http
TESTS += tests/unit/test_proxy_http
tests_unit_test_proxy_http_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_http_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_proxy_socks
TESTS += tests/unit/test_proxy_socks
tests_unit_test_proxy_socks_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_socks_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_proxy_tls
TESTS += tests/unit/test_proxy_tls
tests_unit_test_proxy_tls_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_tls_LDADD = $(unit_ldadd)

# A loopback origin server and raw client for the proxy's tests and bench.
check_PROGRAMS += tests/proxy_helper
tests_proxy_helper_SOURCES = tests/proxy_helper.c \
	tests/proxy_testsrv.c tests/proxy_testsrv.h
tests_proxy_helper_LDADD = libairlock.a $(AIRLOCK_LIBS)

check_PROGRAMS += tests/unit/test_proxy_netns
TESTS += tests/unit/test_proxy_netns
tests_unit_test_proxy_netns_SOURCES = tests/unit/test_proxy_netns.c \
	tests/proxy_testsrv.c tests/proxy_testsrv.h
tests_unit_test_proxy_netns_CFLAGS = $(unit_cflags)
tests_unit_test_proxy_netns_LDADD = $(unit_ldadd)

TESTS += tests/integration/proxy.sh
EXTRA_DIST += tests/integration/proxy.sh

# Request smuggling through the proxy, tried for real (issue 11).
TESTS += tests/integration/proxy_framing.sh
EXTRA_DIST += tests/integration/proxy_framing.sh

# bench/proxy: proxy throughput and latency against direct loopback.
noinst_PROGRAMS += bench/proxy
bench_proxy_SOURCES = bench/proxy_bench.c \
	tests/proxy_testsrv.c tests/proxy_testsrv.h
bench_proxy_LDADD = libairlock.a $(AIRLOCK_LIBS)

EXTRA_DIST += docs/PROXY.md
