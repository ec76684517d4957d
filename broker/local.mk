libairlock_a_SOURCES += \
	broker/actions.c \
	broker/broker.c broker/broker.h broker/broker_int.h \
	broker/jsonrpc.c broker/jsonrpc.h \
	broker/loop.c broker/loop.h \
	broker/audit.h
