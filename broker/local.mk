# broker
libairlock_a_SOURCES += \
	broker/audit.c broker/audit.h \
	broker/audit_verify.c broker/audit_verify.h \
	broker/redact.c broker/redact.h \
	broker/secrets.c broker/secrets.h
