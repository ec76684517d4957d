#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# limits.enforce (policy/manifest_limits.h): as an ordinary user with no
# cgroup delegated, a memory limit asked for is refused by default (the
# command does not run) and, under best-effort, runs with a warning on
# stderr and a limits_not_enforced audit record; never silently.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
U=4242
chmod 755 "$T"
ws="$T/ws"; st="$T/state"
mkdir -p "$ws" "$st"
chown -R "$U:$U" "$ws" "$st"
as_user() {
	(cd "$ws" && timeout 60 setpriv --reuid=$U --regid=$U --clear-groups \
	    env HOME="$st" XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" "$@")
}
manifest() {	# FILE ENFORCE
	cat >"$1" <<EOM
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  mark: ["sh", "-c", "echo ran"]
sandbox:
  limits: { memoryMb: 64 }
limits:
  enforce: $2
EOM
	chmod 644 "$1"
}
manifest "$T/req.yaml" required
manifest "$T/be.yaml" best-effort

as_user "$AIRLOCK" exec --limit memory=64 -- sh -c 'echo ran >ran' 2>"$T/err"
rc=$?
check "as uid $U, --limit memory=64 is refused by default" test "$rc" -ne 0
expect_contains "saying which limit and why" "$(cat "$T/err")" "cannot enforce memory=64 MB: no cgroup controller is delegated to uid $U; refusing to start (limits.enforce: required)"
expect_contains "and what to do" "$(cat "$T/err")" "Delegate=yes"
check "the command did not run" test ! -e "$ws/ran"

as_user "$AIRLOCK" exec --manifest "$T/req.yaml" --limit memory=64 -- true 2>"$T/err"
check "limits.enforce: required refuses too" test $? -ne 0

as_user "$AIRLOCK" exec --manifest "$T/be.yaml" --limit memory=64 -- sh -c 'echo ran >ran' 2>"$T/err"
check "under best-effort the command runs" test $? -eq 0 -a -e "$ws/ran"
expect_contains "with a warning on stderr" "$(cat "$T/err")" "warning: cannot enforce memory=64 MB: no cgroup controller is delegated to uid $U; running without (limits.enforce: best-effort)"
rm -f "$ws/ran"

# Limits not asked for (the defaults) do not refuse: the run reports the
# missing cgroup layer instead.
as_user "$AIRLOCK" exec -- true 2>"$T/err"
check "the default limits do not refuse an ordinary user's run" test $? -eq 0

# In a broker session: refused as a tool error, or run and audited.
serve() {	# MANIFEST: one run_check as uid $U; prints its reply
	printf '%s\n' \
	    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"mark"}}}' |
	    as_user "$AIRLOCK" serve --manifest "$1" --workspace "$ws" 2>"$T/serr" | tail -1
}
r=$(serve "$T/req.yaml")
expect_contains "serve, required: the check is refused" "$r" '"isError":true'
expect_contains "saying why" "$r" "cannot enforce memory=64 MB"
r=$(serve "$T/be.yaml")
expect_contains "serve, best-effort: the check runs" "$r" 'ran'
# The session that ran the check is the one with its artifact.
log=$(dirname "$(find "$st" -name '*-mark.log' | head -1)")/../audit.jsonl
check "the session's audit log is there" test -f "$log"
check "the missing limit is audited" grep -q '"limits_not_enforced".*cannot enforce memory=64 MB' "$log"

printf 'tools: []\nlimits:\n  enforce: sometimes\n' >"$T/bad.yaml"
out=$("$AIRLOCK" check "$T/bad.yaml" 2>&1)
check "a bad limits.enforce is refused" test $? -ne 0
expect_contains "naming the key" "$out" "limits.enforce: expected required or best-effort"
finish
