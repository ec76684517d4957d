#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# tools/privsep-report.sh SRCDIR: counts the lines of C that run in the
# privileged process (the supervisor and broker: everything that holds
# the manifest, the audit key, credentials and approvals) against the
# code that runs only in confined processes (a runner child between
# clone() and execve(), the egress proxy, the patch jail), and lists the
# request kinds the broker accepts: the methods[] table in
# broker/broker.c and the control-socket ops in broker/approval.c.
# Lines are non-blank, non-comment-only lines of .c and .h files.
set -eu
src=${1:-.}
cd "$src"

# Source lines of FILE, optionally only from line FROM (or up to TO-1).
sloc() {
	awk -v from="${2:-1}" -v to="${3:-0}" '
	NR < from || (to > 0 && NR >= to) { next }
	{
		line = $0
		if (incomment) {
			if (line !~ /\*\//) next
			sub(/.*\*\//, "", line); incomment = 0
		}
		while (line ~ /\/\*/) {
			if (line ~ /\/\*.*\*\//) { sub(/\/\*([^*]|\*[^\/])*\*\//, "", line) }
			else { sub(/\/\*.*/, "", line); incomment = 1 }
		}
		if (line ~ /^[ \t]*$/) next
		n++
	}
	END { print n + 0 }' "$1"
}

# The first line of the confined half of a file shared by both sides.
split_at() {
	grep -n "$2" "$1" | head -1 | cut -d: -f1
}

priv=0
unpriv=0
printf '%-34s %6s  %s\n' FILE LINES SIDE
for f in common/*.[ch] policy/*.[ch] broker/*.[ch] supervisor/*.[ch] \
    runner/*.[ch] proxy/*.[ch]; do
	case $f in
	# Generated data (the built-in manifest as a byte array), not code.
	policy/default_manifest.c) continue ;;
	# Runs only in the runner child after clone(), in the proxy
	# process, or in the patch jail.
	# (proxy/ipc.c spawns the proxy from the broker: privileged;
	# proxy/http.c and proxy/socks.c parse requests in the proxy.)
	# policy/diff.c is called only from the jail's side of patchjail.c.
	runner/child.c|runner/landlock.c|proxy/proxy.[ch]|proxy/rules.[ch]|\
	proxy/http.[ch]|proxy/socks.[ch]|\
	supervisor/cmd_proxy.c|supervisor/cmd_patch_jail.c|policy/diff.[ch])
		n=$(sloc "$f"); unpriv=$((unpriv + n)); side=confined ;;
	broker/patchjail.c)
		at=$(split_at "$f" '^/\* The jail.s side')
		n=$(sloc "$f" 1 "$at"); priv=$((priv + n))
		printf '%-34s %6s  %s\n' "$f (parent)" "$n" privileged
		n=$(sloc "$f" "$at"); unpriv=$((unpriv + n))
		printf '%-34s %6s  %s\n' "$f (jail)" "$n" confined
		continue ;;
	*)
		n=$(sloc "$f"); priv=$((priv + n)); side=privileged ;;
	esac
	printf '%-34s %6s  %s\n' "$f" "$n" "$side"
done
echo
echo "privileged (supervisor + broker process): $priv lines"
echo "confined (runner child, proxy, patch jail): $unpriv lines"
echo
echo "request kinds the broker accepts from the agent (broker/broker.c methods[]):"
sed -n '/^} methods\[\] = {/,/^};/p' broker/broker.c |
    grep -o '{ "[^"]*"' | sed 's/{ "\(.*\)"/  \1/'
echo "control-socket ops (broker/approval.c, SO_PEERCRED-checked approvers):"
grep -o 'strcmp(op, "[a-z_]*")' broker/approval.c | sed 's/.*"\(.*\)")/  \1/' |
    sort -u
