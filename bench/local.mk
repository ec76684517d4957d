# bench
# audit: appends per second, signed+chained vs plain (bench/audit.sh).
check_PROGRAMS += bench/audit_bench
bench_audit_bench_CFLAGS = $(AM_CFLAGS)
bench_audit_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
EXTRA_DIST += bench/audit.sh
