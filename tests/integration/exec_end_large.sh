#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An exec_end larger than one of the writer's datagrams is still recorded
# whole (invariant 6: every decision is in the audit log).  The command
# plants 70 files with 100-byte names under .git/hooks: the write policy
# refuses the change set (72 entries with .git and .git/hooks), and
# exec_end lists the first 64, some 8 KiB of JSON.  airlock exec handed exec_end to its audit writer as one
# datagram, which the writer read into 4 KiB: the text was cut, did not
# parse, and the log said {"event":"exec_end","fields":{}}, with neither
# the exit code nor a trace of the refusal.  The same for the refusals of
# the egress proxy that exec_end lists (--allow-host).  As root and as
# uid 4242.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
U=4242

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws" "$T/st$u"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1
	# last_end: the fields of the newest exec_end, as JSON.
	last_end() {
		local log
		log=$(find "$T" -name audit.jsonl -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
		jq -c 'select(.event == "exec_end") | .fields' "$log"
	}
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- sh -c \
	    'mkdir -p .git/hooks; for i in $(seq 1 70); do echo x > .git/hooks/$(printf "%0100d" $i); done; exit 3' 2>&1)
	status=$?
	expect_eq "uid $u: the planted hooks are refused (77)" "$status" 77
	end=$(last_end)
	expect_eq "uid $u: exec_end keeps the exit code and the refusal's size" \
	    "$(printf '%s' "$end" | jq -c '[.exitCode, .changeSet.applied, .changeSet.refusedTotal, (.changeSet.refused | length)]')" \
	    "[3,0,72,64]"
	expect_eq "uid $u: ... and names the refused paths with their rule" \
	    "$(printf '%s' "$end" | jq -c '[.changeSet.refused[] | select(.path == ".git/hooks/'"$(printf '%0100d' 1)"'") | .rule]')" \
	    '["git"]'
	log=$(find "$T" -name audit.jsonl -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
	pub=$(dirname "$(dirname "$(dirname "$log")")")/keys/audit.pub
	test -s "$pub" && as_uid "$u" "$AIRLOCK" audit verify --key "$pub" "$log" >/dev/null 2>&1
	expect_eq "uid $u: the log verifies" "$?" 0
	check "uid $u: nothing landed" test ! -e "$ws/.git"
done
finish
