# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
libairlock_a_SOURCES += \
	common/buf.c common/buf.h \
	common/errors.c common/errors.h \
	common/log.c common/log.h \
	common/paths.c common/paths.h \
	common/util.c common/util.h \
	common/sha256.c common/sha256.h \
	common/vis.c common/vis.h \
	common/lookalike.c common/lookalike.h \
	common/approver_token.c common/approver_token.h

check_PROGRAMS += tests/unit/test_sha256
TESTS += tests/unit/test_sha256
tests_unit_test_sha256_CFLAGS = $(unit_cflags)
tests_unit_test_sha256_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_buf
TESTS += tests/unit/test_buf
tests_unit_test_buf_CFLAGS = $(unit_cflags)
tests_unit_test_buf_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_vis
TESTS += tests/unit/test_vis
tests_unit_test_vis_CFLAGS = $(unit_cflags)
tests_unit_test_vis_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_lookalike
TESTS += tests/unit/test_lookalike
tests_unit_test_lookalike_CFLAGS = $(unit_cflags)
tests_unit_test_lookalike_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_approver_token
TESTS += tests/unit/test_approver_token
tests_unit_test_approver_token_CFLAGS = $(unit_cflags)
tests_unit_test_approver_token_LDADD = $(unit_ldadd)
check_PROGRAMS += tests/unit/test_util
TESTS += tests/unit/test_util
tests_unit_test_util_CFLAGS = $(unit_cflags)
tests_unit_test_util_LDADD = $(unit_ldadd)
