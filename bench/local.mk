# bench

# Broker round trips (bench/broker): not built by default.
EXTRA_PROGRAMS = bench/mcp_bench
bench_mcp_bench_SOURCES = bench/mcp_bench.c
CLEANFILES += bench/mcp_bench
EXTRA_DIST += bench/broker bench/bench.yaml
