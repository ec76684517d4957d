# Integration tests of the broker, the run supervisor and approvals,
# driving the built airlock binary over MCP (bash + jq).
EXTRA_DIST += tests/integration/mcp_lib.sh
TESTS += tests/integration/mcp_protocol.sh
EXTRA_DIST += tests/integration/mcp_protocol.sh
TESTS += tests/integration/tools.sh
EXTRA_DIST += tests/integration/tools.sh
TESTS += tests/integration/patch_loop.sh
# The incremental workspace index (issue 14).
TESTS += tests/integration/wsindex.sh
TESTS += tests/integration/limits_enforce.sh
EXTRA_DIST += tests/integration/limits_enforce.sh
EXTRA_DIST += tests/integration/wsindex.sh
EXTRA_DIST += tests/integration/patch_loop.sh
TESTS += tests/integration/run_teardown.sh
EXTRA_DIST += tests/integration/run_teardown.sh
TESTS += tests/integration/approvals.sh
TESTS += tests/integration/agent_socket.sh
TESTS += tests/integration/unsafe_layout.sh
TESTS += tests/integration/broker_stall.sh
EXTRA_DIST += tests/integration/broker_stall.sh
EXTRA_DIST += tests/integration/unsafe_layout.sh
EXTRA_DIST += tests/integration/agent_socket.sh
EXTRA_DIST += tests/integration/approvals.sh
# A raw client for the approvals control socket.
check_PROGRAMS += tests/unixclient
tests_unixclient_SOURCES = tests/unixclient.c
# Runs a command as a child subreaper and reports what it left behind.
check_PROGRAMS += tests/reaper
tests_reaper_SOURCES = tests/reaper.c
# airlock run: the agent command as typed on the host (issue 10).
TESTS += tests/integration/run_agent_bin.sh
EXTRA_DIST += tests/integration/run_agent_bin.sh
# airlock run and exec: --allow-host, --env, --ro, --rw (issue 10).
TESTS += tests/integration/run_overrides.sh
EXTRA_DIST += tests/integration/run_overrides.sh
# airlock run as a user other than root: a per-user agent home (issue 10).
TESTS += tests/integration/run_nonroot_home.sh
EXTRA_DIST += tests/integration/run_nonroot_home.sh
# Terminal-safe output: agent bytes reach a person escaped (issue 11).
TESTS += tests/integration/terminal_safe.sh
EXTRA_DIST += tests/integration/terminal_safe.sh
# The output layer: capped results, artifacts, ranges (issue 13).
TESTS += tests/integration/output_layer.sh
EXTRA_DIST += tests/integration/output_layer.sh
# Pinned code: approvals, gates and secrets bound to the code that runs (issue 11).
TESTS += tests/integration/pinned_code.sh
EXTRA_DIST += tests/integration/pinned_code.sh
# Runner writes are a change set the broker checks and applies (issue 12).
TESTS += tests/integration/change_set.sh
EXTRA_DIST += tests/integration/change_set.sh
# make demo, as a newcomer runs it.
TESTS += tests/integration/demo.sh
EXTRA_DIST += tests/integration/demo.sh
# Change sets as an ordinary user (issue 12).
TESTS += tests/integration/change_set_nonroot.sh
EXTRA_DIST += tests/integration/change_set_nonroot.sh
