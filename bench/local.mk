# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench

# Broker round trips (bench/broker): not built by default.
EXTRA_PROGRAMS = bench/mcp_bench bench/cgroup_attach
# The cost of a cgroup placement by kernel interface (bench/cgroup_attach).
bench_cgroup_attach_SOURCES = bench/cgroup_attach.c
CLEANFILES += bench/cgroup_attach
bench_mcp_bench_SOURCES = bench/mcp_bench.c
CLEANFILES += bench/mcp_bench
# Pipelined throughput, 64 in flight, binaries interleaved (bench/pipe.sh);
# built for the tests too (tests/integration/bench_pipe_runs.sh).
check_PROGRAMS += bench/mcp_pipe
bench_mcp_pipe_SOURCES = bench/mcp_pipe.c
CLEANFILES += bench/mcp_pipe
EXTRA_DIST += bench/pipe.sh
# Runner start-up by cgroup interface (v1 attach, v2 clone3) vs bwrap.
EXTRA_DIST += bench/cgroup_startup.sh bench/start_under_load.sh bench/cpu_per_run.sh \
	bench/cpu_by_role.sh bench/cpu_by_role.py
EXTRA_DIST += bench/broker bench/bench.yaml
# redact_buf() MB/s over a build log, random hex and xxd dumps
# (bench/redact_bench.c; docs/PERFORMANCE.md, "Redaction throughput").
EXTRA_PROGRAMS += bench/redact_bench
bench_redact_bench_CFLAGS = $(AM_CFLAGS)
bench_redact_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
CLEANFILES += bench/redact_bench
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
EXTRA_DIST += bench/cow_session.sh
# seccomp refusals as user notifications vs plain EPERM (bench/denials.sh).
EXTRA_DIST += bench/denials.sh
# change sets: run_check writing nothing and 1,000 files, two airlocks
# interleaved (bench/changeset.sh).
EXTRA_DIST += bench/changeset.sh
# audit host key: certified session keys vs signing with the host key.
check_PROGRAMS += bench/audit_key_bench
bench_audit_key_bench_CFLAGS = $(AM_CFLAGS)
bench_audit_key_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
# The workspace index against git status and sha256sum (bench/wsindex.sh).
check_PROGRAMS += bench/wsindex_bench
bench_wsindex_bench_CFLAGS = $(AM_CFLAGS)
bench_wsindex_bench_LDADD = libairlock.a $(AIRLOCK_LIBS)
EXTRA_DIST += bench/wsindex.sh bench/wsindex_ab.sh
# apply_patch round trips and the ping wait behind 16 MiB patches (bench/patch.sh).
EXTRA_DIST += bench/patch.sh
