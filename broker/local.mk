libairlock_a_SOURCES += \
	broker/actions.c \
	broker/approval.c broker/approval.h \
	broker/broker.c broker/broker.h broker/broker_int.h \
	broker/jsonrpc.c broker/jsonrpc.h \
	broker/ledger.c broker/ledger.h \
	broker/loop.c broker/loop.h \
	broker/patchjail.c broker/patchjail.h \
	broker/wswrite.c broker/wswrite.h \
	broker/wsdigest.c broker/wsdigest.h \
	broker/audit.h
