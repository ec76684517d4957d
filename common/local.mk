libairlock_a_SOURCES += \
	common/buf.c common/buf.h \
	common/errors.c common/errors.h \
	common/log.c common/log.h \
	common/util.c common/util.h

check_PROGRAMS += tests/unit/test_buf
TESTS += tests/unit/test_buf
tests_unit_test_buf_CFLAGS = $(unit_cflags)
tests_unit_test_buf_LDADD = $(unit_ldadd)
