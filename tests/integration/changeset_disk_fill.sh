#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run cannot fill the host's disk through its upper layer.  As an
# ordinary user the upper layer was a directory on the state directory's
# disk, bounded only when the set landed: `fallocate -l 1000M` five times
# took 5 GB of the host's disk in 2 s.  Now it is a size-limited tmpfs
# (2048 MiB, made in a user namespace of airlock's own) as it is for
# root: the run gets ENOSPC inside, its set is refused ("filled the 2048
# MiB upper layer"), nothing lands, and the state directory does not
# grow.  Tried for real as root and uid 4242, through airlock exec and a
# broker's run_check.  And 530000 empty files (no bytes, an inode each)
# fill its inodes, bounded now.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
U=4242
# Two 1000 MiB files and then 200 MiB more: over the 2048 MiB quota.  The
# memory limit is raised: root's tmpfs is charged to the sandbox's cgroup,
# whose 1024 MB default would kill the command before the tmpfs filled
# (uid 4242 has no cgroup delegated here: it asks for no limit).
FILL='fallocate -l 1000M big1 && fallocate -l 1000M big2 && head -c 200M /dev/zero >big3; echo "fill: $?"'

# du_max FILE: the largest of the KiB counts in FILE.
du_max() { sort -n "$1" | tail -n 1; }
# watch_du DIR OUT PID: du -sxk DIR into OUT every 0.1 s while PID lives.
watch_du() {
	while kill -0 "$3" 2>/dev/null; do
		du -sxk "$1" 2>/dev/null | cut -f1 >>"$2"
		sleep 0.1
	done
}

for u in 0 $U; do
	ws="$T/ws$u"
	st="$T/st$u"
	mkdir -p "$ws" "$st/broker" "$st/exec"
	echo keep >"$ws/keep.txt"
	chown -R "$u:$u" "$ws" "$st"
	cd "$ws" || exit 1
	LIM="" SANDBOX=""
	if [ "$u" = 0 ]; then
		LIM="--limit memory=4096"
		SANDBOX=$'sandbox:\n  limits: { memoryMb: 4096 }'
	fi

	# airlock exec: the writes fill the upper layer, then it sleeps so
	# that the state directory is measured while the run still holds
	# what it wrote.
	: >"$T/du$u"
	# shellcheck disable=SC2086
	as_uid "$u" env AIRLOCK_HOME="$st/exec" "$AIRLOCK" exec $LIM --workspace "$ws" -- \
	    sh -c "$FILL; sleep 2" >"$T/out$u" 2>&1 &
	pid=$!
	watch_du "$st" "$T/du$u" "$pid"
	wait "$pid"
	status=$?
	out=$(cat "$T/out$u")
	expect_contains "uid $u exec: the writes fail with ENOSPC inside" "$out" "No space left on device"
	expect_eq "uid $u exec: the set is refused (77)" "$status" 77
	expect_contains "uid $u exec: the refusal says the upper layer filled" "$out" "filled the 2048 MiB upper layer and failed with ENOSPC"
	log=$(find "$st/exec" -name audit.jsonl | head -n 1)
	expect_eq "uid $u exec: exec_end.changeSet records it" \
	    "$(jq -c 'select(.event == "exec_end") | .fields.changeSet' "$log" 2>/dev/null)" \
	    '{"applied":0,"error":"the upper layer was full"}'
	check "uid $u exec: nothing landed" test -z "$(find "$ws" -name 'big*')"
	max=$(du_max "$T/du$u")
	check "uid $u exec: the state directory stayed under 64 MiB during the run (max ${max} KiB)" test "${max:-0}" -lt 65536

	# Empty files cost the tmpfs no bytes but an inode each, kernel
	# memory no cgroup bounds for an ordinary user: the tmpfs default
	# (half the RAM's pages) let a run pin gigabytes.  Its inodes are
	# bounded too (twice the change set's 262144 entries).
	# shellcheck disable=SC2086,SC2016
	out=$(as_uid "$u" env AIRLOCK_HOME="$st/exec" "$AIRLOCK" exec $LIM --workspace "$ws" -- \
	    sh -c 'mkdir many && cd many && i=0; while [ $i -lt 530000 ]; do : >$i || exit 9; i=$((i + 1)); done' 2>&1)
	status=$?
	expect_contains "uid $u exec: 530000 empty files: ENOSPC inside" "$out" "No space left on device"
	expect_eq "uid $u exec: refused (77)" "$status" 77
	expect_contains "uid $u exec: the upper layer filled" "$out" "filled the 2048 MiB upper layer"
	check "uid $u exec: none landed" test ! -e "$ws/many"

	# A broker's check, as a session runs it.
	cat >"$T/m$u.yaml" <<EOF
$SANDBOX
tools:
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 60000
checks:
  fill:
    argv:
      - sh
      - -c
      - '$FILL; sleep 2'
    timeoutMs: 50000
EOF
	chmod 644 "$T/m$u.yaml"
	: >"$T/bdu$u"
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"fill","idempotencyKey":"k"}}}' |
	    as_uid "$u" env AIRLOCK_HOME="$st/broker" timeout 90 "$AIRLOCK" serve \
	    --manifest "$T/m$u.yaml" --workspace "$ws" >"$T/bout$u" 2>"$T/berr$u" &
	pid=$!
	watch_du "$st" "$T/bdu$u" "$pid"
	wait "$pid"
	r=$(tail -n 1 "$T/bout$u")
	expect_contains "uid $u run_check: refused" "$r" "change_refused"
	expect_contains "uid $u run_check: because the upper layer filled" "$r" "filled the 2048 MiB upper layer and failed with ENOSPC"
	log=$(find "$st/broker" -name audit.jsonl | head -n 1)
	expect_eq "uid $u run_check: change_refused records the reason" \
	    "$(jq -r 'select(.event == "change_refused") | .fields.reason' "$log" 2>/dev/null)" "upper layer full"
	check "uid $u run_check: nothing landed" test -z "$(find "$ws" -name 'big*')"
	max=$(du_max "$T/bdu$u")
	check "uid $u run_check: the state directory stayed under 64 MiB during the run (max ${max} KiB)" test "${max:-0}" -lt 65536
	cd "$T" || exit 1
done
finish
