#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The lander (broker/landjob.h) killed while it applies an apply_patch.
# Killed after the commit point (the journal renamed "done"), the patch
# was in the workspace, but the agent was told "nothing was applied: the
# landing process was lost" (write_failed, retryable: a retry then met
# base_mismatch or patched twice) and the log had no change_applied,
# only apply_recovered "finished".  Now the broker finds out from the
# lander's word at its commit point and from the journal's state which
# it was: killed before the commit point, the patch is rolled back and
# the agent told so; after it, the agent gets the patch's normal result
# and the log change_applied.  The lander is killed for real: strace,
# attached to it, injects SIGKILL into the syscall named.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
if ! command -v strace >/dev/null; then
	echo "not ok - strace is needed to kill the lander at a chosen step (apt-get install strace)"
	exit 1
fi
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 60000
runBudget:
  maxChangedFiles: 5
EOF
printf -- '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n' >"$T/p.diff"
base=$(printf 'one\n' | sha256sum | cut -d' ' -f1)
args="{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$base\"}"
call="{\"name\":\"apply_patch\",\"arguments\":$args}"


done_there() { compgen -G "$ws/.airlock-trash-*/done" >/dev/null; }

# kill_lander WHERE SYSCALL PATH [after]: a fresh session whose lander
# is killed at its first SYSCALL that names PATH (or a descriptor of
# it); with "after", once that syscall is done and "done" is there,
# while strace holds it on its way back.  The patch's reply in $R, the
# status after it in $S, the log in $L.
kill_lander() {
	local where=$1 lp sp how=signal=KILL
	printf 'one\n' >"$ws/a.txt"
	mcp_start "$T/m.yaml" "$ws"
	lp=$(mcp_lander_pid)
	[ "${4:-}" = after ] && how=delay_exit=4s
	timeout 30 strace -qq -o /dev/null -p "$lp" -P "$3" -e trace="$2" \
	    -e inject="$2:$how" 2>/dev/null &
	sp=$!
	check "$where: strace is attached to the lander" wait_for pid_traced "$lp"
	if [ "${4:-}" = after ]; then
		mcp_send "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/call\",\"params\":$call}"
		check "$where: the commit point is passed" wait_for done_there
		kill -KILL "$lp"
		mcp_wait_id 99
	else
		mcp_rpc tools/call "$call" 60
	fi
	wait "$sp"
	check "$where: the lander was killed" test ! -e "/proc/$lp/status"
	P=$R
	mcp_rpc airlock/session/status '{}'
	S=$R
	R=$P
	mcp_stop
	L=$(newest_session)/audit.jsonl
}

# Before the commit point (the rename of "journal" to "done"): rolled
# back, and the agent told nothing was applied.
kill_lander "before the commit point" renameat done
expect_eq "before: the workspace is as it was" "$(cat "$ws/a.txt")" one
expect_error_class "before: the agent is told it failed" write_failed
expect_contains "before: ... that nothing was applied" \
    "$(jr .result.structuredContent.message)" "nothing was applied"
expect_eq "before: the log has no change_applied" \
    "$(grep -c '"event":"change_applied"' "$L")" 0
check "before: the log has the rollback" \
    grep -q '"apply_recovered".*"rolled_back"' "$L"

# After it: right after (before the lander could say so: recovery finds
# "done" and says "finished"), while deleting the trash ("done" still
# there), at the old a.txt in the trash ("0": "done" used to go first
# when the directory listed it first, and the trash was left for a
# human, holding the old file), and as the trash directory itself goes
# (its "done" gone: recovery finds an empty trash, and only the
# lander's word tells).
for where in "at the commit point" "after the commit point" \
    "at the old file in the trash" "as the trash goes"; do
	case $where in
	at\ the\ commit*) kill_lander "$where" renameat done after ;;
	after*) kill_lander "$where" unlinkat done ;;
	*old\ file*) kill_lander "$where" unlinkat 0 ;;
	*) kill_lander "$where" unlinkat "$ws" ;;
	esac
	expect_eq "$where: the patch is in place" "$(cat "$ws/a.txt")" two
	expect_ok_result "$where: the agent is told it was applied"
	expect_eq "$where: with the patch's result" \
	    "$(jr -c .result.structuredContent.changedFiles)" '["a.txt"]'
	expect_eq "$where: and its newSha" \
	    "$(jr .result.structuredContent.newSha)" \
	    "$(sha256sum <"$ws/a.txt" | cut -d' ' -f1)"
	expect_eq "$where: the log says it was applied" \
	    "$(jq -c 'select(.event == "change_applied") | .fields.id' "$L")" \
	    "$(jq -c 'select(.event == "change_landing") | .fields.id' "$L")"
	expect_eq "$where: no rollback in the log" \
	    "$(grep -c '"rolled_back"' "$L")" 0
	R=$S
	expect_eq "$where: the budget counts the changed file" \
	    "$(jr .result.budgets.maxChangedFiles.used)" 1
	expect_eq "$where: no trash left" \
	    "$(compgen -G "$ws/.airlock-trash-*" | wc -l)" 0
	expect_eq "$where: none left for a human" \
	    "$(grep -c '"action":"left"' "$L")" 0
	"$AIRLOCK" audit verify "$L" >"$T/verify" 2>&1
	expect_contains "$where: the log verifies" "$(cat "$T/verify")" \
	    "valid and closed"
done

# A run's change set, killed after its commit point: the run's result,
# and change_applied, each with the mode bits that did not land (they
# went with the lander's last word, and were lost with it: neither
# said the run's chmod 666 landed 0664).
call='{"name":"sh","arguments":{"command":"echo two >a.txt && chmod 666 a.txt"}}'
kill_lander "a run's set" unlinkat done
expect_eq "a run's set: it is in place" "$(cat "$ws/a.txt")" two
expect_ok_result "a run's set: the agent is told the run's result"
expect_eq "a run's set: its exit code" \
    "$(jr .result.structuredContent.exitCode)" 0
expect_eq "a run's set: the log says it was applied" \
    "$(jq -c 'select(.event == "change_applied") | .fields.landerLost' "$L")" \
    true
expect_eq "a run's set: the file lands without the world-write bit" \
    "$(stat -c %a "$ws/a.txt")" 664
expect_eq "a run's set: the agent is told of the bit dropped" \
    "$(jr -S -c .result.structuredContent.modesDropped)" \
    '[{"landed":"0664","mode":"0666","path":"a.txt"}]'
expect_eq "a run's set: so is the log" \
    "$(jq -c 'select(.event == "change_applied") | [.fields.modesDropped, .fields.modesDroppedTotal]' "$L")" \
    '[[{"landed":"0664","mode":"0666","path":"a.txt"}],1]'
finish
