# bench

# Broker round trips (bench/broker): not built by default.
EXTRA_PROGRAMS = bench/mcp_bench
bench_mcp_bench_SOURCES = bench/mcp_bench.c
CLEANFILES += bench/mcp_bench
EXTRA_DIST += bench/broker bench/bench.yaml
# audit: appends per second, signed+chained vs plain (bench/audit.sh).
check_PROGRAMS += bench/audit_bench
bench_audit_bench_CFLAGS = $(AM_CFLAGS)
bench_audit_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
EXTRA_DIST += bench/audit.sh
noinst_PROGRAMS += bench/spawnbench
bench_spawnbench_SOURCES = bench/spawnbench.c
EXTRA_DIST += bench/spawn
EXTRA_DIST += bench/output.sh
# agent start-up under airlock vs bare and bwrap (bench/agent_startup.sh).
EXTRA_DIST += bench/agent_startup.sh
# The workspace index against git status and sha256sum (bench/wsindex.sh).
check_PROGRAMS += bench/wsindex_bench
bench_wsindex_bench_CFLAGS = $(AM_CFLAGS)
bench_wsindex_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
EXTRA_DIST += bench/wsindex.sh
