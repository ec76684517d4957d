#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A job's "ended" notification (its exit event, notifications/message)
# goes out once its change set has landed or been refused, and says
# which.  Before, it went out as the command ended, before the land: an
# agent told "job-1 ended with exit code 0" read the workspace and did
# not find the job's files yet (here: 20000 of them, which take a moment
# to land), or took for landed writes the land then refused (a symlink
# out of the workspace), while job_output already waited for the land
# (job_land_status.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
BIGN=${BIGN:-20000}
cat >"$T/m.yaml" <<EOF2
tools:
  - name: big
    command: ["sh", "-c", "sleep 0.5; mkdir big && cd big && seq 1 $BIGN | xargs touch"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
    jobs:
      maxBlockMs: 5000
      events:
        - exit: any
  - name: bad
    command: ["sh", "-c", "sleep 0.5; echo x >j1; ln -s /etc/passwd out"]
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 30000
    jobs:
      maxBlockMs: 5000
      events:
        - exit: any
EOF2

# exit_event JOB: waits (30 s) for JOB's exit event, without a request in
# flight; leaves it in $R and, the moment it came, whether the big job's
# last file was in the workspace in $SEEN.
exit_event() {
	local deadline=$((SECONDS + 30))
	while [ $SECONDS -lt $deadline ]; do
		mcp_recv 5
		SEEN=no
		test -e "$ws/big/$BIGN" && SEEN=yes
		case $R in
		*'"event":"exit"'*"\"jobId\":\"$1\""* | *"\"jobId\":\"$1\",\"event\":\"exit\""*) return 0 ;;
		esac
	done
	R=
	return 1
}
ev() { printf '%s' "$R" | jq -c "$1"; }

mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
mcp_call big '{"blockMs":0}'
expect_eq "the big writer runs as a job" "$(jr -c '.result.structuredContent | [.jobId, .status]')" '["job-1","running"]'
check "its exit event comes" exit_event job-1
expect_eq "when it came, the job's files had landed" "$SEEN" yes
expect_eq "it says the job's changes landed" \
    "$(ev '.params.data | [.status, .exitCode, .landed, .errorClass]')" '["exited",0,true,null]'
expect_eq "... in the line the model reads" "$(ev '.params.data.line')" \
    '"job-1 ended with exit code 0; its changes landed"'

mcp_call bad '{"blockMs":0}'
expect_eq "the symlink writer runs as a job" "$(jr .result.structuredContent.jobId)" job-2
check "its exit event comes" exit_event job-2
expect_eq "it says the job's changes were refused" \
    "$(ev '[.params.level, (.params.data | .status, .exitCode, .landed, .errorClass)]')" \
    '["warning","failed",0,false,"change_refused"]'
expect_eq "... in the line the model reads" "$(ev '.params.data.line')" \
    '"job-2 ended with exit code 0; nothing of it was applied (change_refused)"'
check "nothing of it landed" test ! -e "$ws/j1" -a ! -e "$ws/out"
mcp_stop

# In the log, each job's exit event comes after its land's outcome.
a="$sess/audit.jsonl"
order=$(jq -r 'if .event == "job_event" then "\(.event):\(.fields.jobId)"
    elif .event == "job_start" then "\(.event):\(.fields.jobId)"
    elif .event == "change_landing" or .event == "change_applied" or .event == "change_refused" then .event
    else empty end' "$a" | tr '\n' ' ')
expect_eq "each exit event is recorded after its set landed or was refused" "$order" \
    'job_start:job-1 change_landing change_applied job_event:job-1 job_start:job-2 change_refused job_event:job-2 '
# The log says what will land before the workspace changes: the set's
# entries and paths, signed and on the disk before the lander is told yes.
expect_eq "change_landing names the call and what lands, as change_applied does" \
    "$(jq -c 'select(.event == "change_landing" or .event == "change_applied") | [.fields.id, .fields.entries]' "$a" | uniq | wc -l)" 1
check "... and how many paths it writes" test "$(jq -r 'select(.event == "change_landing") | .fields.paths' "$a")" -ge 1
check "the log verifies" "$AIRLOCK" audit verify -q "$a"
finish
