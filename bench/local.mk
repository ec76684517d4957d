# bench
noinst_PROGRAMS += bench/spawnbench
bench_spawnbench_SOURCES = bench/spawnbench.c
EXTRA_DIST += bench/spawn
