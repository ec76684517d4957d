#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A run's chown and chgrp.  The collect walk never compares owners (a
# new file lands the workspace owner's, a file the run rewrote keeps its
# owner and group), so an owner or group a run changed would be lost
# without a word.  It cannot change one: its user namespace maps its own
# uid and gid alone, with no capability, so a chown or chgrp to another
# id fails inside (EINVAL), one of a file whose owner or group the
# namespace does not map fails (EOVERFLOW: overlayfs cannot copy it up),
# and one to its own ids changes nothing it sees.  This holds that,
# from inside airlock exec (as root and as uid 4242), an exec tool and a
# copy-on-write agent (its diff and commit): should a run ever change an
# owner, the walk must tell it as it tells a mode (modesDropped).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
# Checkouts of other owners are made as root.
if [ "$(id -u)" != 0 ]; then finish; exit; fi
# Each attempt on an existing file, a directory, a file of a group the
# namespace does not map, and a new file; then the run's own ids.
attack='try() { n=$1; shift; if e=$("$@" 2>&1); then echo "$n: ok"; else echo "$n: ${e##*: }"; fi; }
try chown-file chown 4243 f
try chown-root chown 0:0 f
try chgrp-dir chgrp 4243 d
try chgrp-foreign chgrp $(id -g) grp
echo x >new && try chown-new chown 4243 new
try chgrp-new chgrp 0 new
try own-ids chown $(id -u):$(id -g) f d new'
want='chown-file: Invalid argument
chown-root: Invalid argument
chgrp-dir: Invalid argument
chgrp-foreign: Value too large for defined data type
chown-new: Invalid argument
chgrp-new: Invalid argument
own-ids: ok'
# setup WS OWNER: a checkout owned by OWNER, with grp of group 50.
setup() {
	rm -rf "$1" && mkdir -p "$1/d" && echo a >"$1/f" && echo g >"$1/grp"
	chown -R "$2:$2" "$1" && chgrp 50 "$1/grp"
}
# owners WS: each path's uid:gid on the host.
owners() { (cd "$1" && stat -c '%n %u:%g' f d grp new 2>&1 | tr '\n' ' '); }

ws="$T/ws"
setup "$ws" 0
out=$(cd "$ws" && "$A" exec --workspace "$ws" -- sh -c "$attack" 2>"$T/err")
expect_eq "exec as root: no chown or chgrp changes an owner inside" "$out" "$want"
expect_eq "exec as root: each keeps its owner, the new file is the owner's" \
    "$(owners "$ws")" "f 0:0 d 0:0 grp 0:50 new 0:0 "
expect_not_contains "exec as root: nothing is told dropped" "$(cat "$T/err")" "landed as"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
EOF2
setup "$ws" 0
mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":$(printf '%s' "$attack" | jq -Rs .)}" 60
expect_ok_result "tool: the run succeeds"
expect_eq "tool: no chown or chgrp changes an owner inside" \
    "$(jr -r .result.structuredContent.stdout)" "$want"
mcp_stop
expect_eq "tool: each keeps its owner, the new file is the owner's" \
    "$(owners "$ws")" "f 0:0 d 0:0 grp 0:50 new 0:0 "

cat >"$T/c.yaml" <<'EOF2'
tools: []
agent:
  workspace: cow
EOF2
setup "$ws" 0
{ echo '#!/bin/sh'; printf '%s\n' "$attack"; } >"$T/agent.sh"
chmod 755 "$T/agent.sh"
(cd "$T" && timeout 60 "$A" run --manifest "$T/c.yaml" --workspace "$ws" \
    -- "$T/agent.sh" >"$T/out" 2>"$T/err")
S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
expect_eq "cow: no chown or chgrp changes an owner inside" "$(cat "$T/out")" "$want"
"$A" diff "$S" >/dev/null 2>"$T/derr"
expect_not_contains "cow: the diff tells nothing dropped" "$(cat "$T/derr")" "lands as"
"$A" commit "$S" 2>"$T/cerr"
expect_eq "cow: the commit succeeds" "$?" 0
expect_eq "cow: each keeps its owner, the new file is the owner's" \
    "$(owners "$ws")" "f 0:0 d 0:0 grp 0:50 new 0:0 "

# As uid 4242, whose runner is 4242 itself (no idmapped lower).
U=4242
setup "$ws" $U
chown $U:$U "$T/home" "$T/run"
out=$(cd "$ws" && setpriv --reuid=$U --regid=$U --clear-groups \
    env HOME="$T/home" XDG_STATE_HOME="$T/home" XDG_RUNTIME_DIR="$T/run" \
    AIRLOCK_HOME="$T/home/u" AIRLOCK_RUNTIME_DIR="$T/run/u" \
    "$A" exec --workspace "$ws" -- sh -c "$attack" 2>"$T/err")
expect_eq "exec as uid $U: no chown or chgrp changes an owner inside" "$out" "$want"
expect_eq "exec as uid $U: each keeps its owner, the new file is the user's" \
    "$(owners "$ws")" "f $U:$U d $U:$U grp $U:50 new $U:$U "
expect_not_contains "exec as uid $U: nothing is told dropped" "$(cat "$T/err")" "landed as"
finish
