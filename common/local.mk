libairlock_a_SOURCES += \
	common/buf.c common/buf.h \
	common/errors.c common/errors.h \
	common/log.c common/log.h \
	common/util.c common/util.h
