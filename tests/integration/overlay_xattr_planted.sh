#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A sandbox that writes host paths directly cannot set extended
# attributes.  An airlock run by an ordinary user mounts each runner's
# overlay with userxattr, and overlayfs reads user.overlay.* attributes
# on its lower layer, the checkout: an agent with agent.workspace: rw set
# user.overlay.opaque on a directory and user.overlay.whiteout on an empty
# file in it, and from then on every check ran without that file (an
# __init__.py, a flag file) while the workspace, and the digest a gate is
# bound to, had it.  Now every xattr set in such a sandbox fails with
# EOPNOTSUPP (a filter cannot read the name), and the checks see the
# file.  Sandboxes whose writes go to an overlay (airlock exec, a cow
# agent) still set them: the land drops them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")

cat >"$T/m.yaml" <<'EOM'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: none
    timeoutMs: 30000
agent:
  workspace: rw
EOM
# plant.py: the agent's attack, in its own sandbox on the checkout.
cat >"$T/plant.py" <<'EOP'
import errno, os
for path, name, value in (("d/test_x", "user.overlay.whiteout", b""),
                          ("d", "user.overlay.opaque", b"x")):
    try:
        os.setxattr(path, name, value)
        print("set", name)
    except OSError as e:
        print("refused", name, errno.errorcode[e.errno])
EOP

# xattrs PATH...: the extended attributes of each PATH, as the host sees them.
xattrs() {
	python3 -c 'import os, sys
for p in sys.argv[1:]:
    for n in os.listxattr(p, follow_symlinks=False):
        print(p, n)' "$@"
}

# attack OWNER: the rw agent of an airlock run as OWNER (0: root) plants
# the attributes, then looks up d's files as a check would.
attack() {
	local u=$1 ws="$T/ws$1"
	rm -rf "$ws"
	mkdir -p "$ws/d" "$T/st$u"
	: >"$ws/d/test_x"
	echo ok >"$ws/d/other"
	cp "$T/plant.py" "$ws/plant.py"
	{
		echo '#!/bin/sh'
		echo "python3 plant.py >&2"
		connect_calls '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sh","arguments":{"command":"for f in other test_x; do test -e d/$f || continue; echo $f; done"}}}'
	} >"$T/agent$u.sh"
	chmod 755 "$T/agent$u.sh"
	chmod 644 "$T/plant.py" "$T/m.yaml"
	[ "$u" = 0 ] || chown -R "$u:$u" "$ws" "$T/st$u"
	(cd "$ws" && as_uid "$u" timeout 60 "$A" run --manifest "$T/m.yaml" \
	    --workspace "$ws" -- "$T/agent$u.sh" >"$T/out$u" 2>"$T/err$u")
	echo "$?" >"$T/rc$u"
}

for u in 4242 0; do
	attack "$u"
	out=$(cat "$T/err$u")
	expect_eq "uid $u: the session ran" "$(cat "$T/rc$u")" 0
	expect_contains "uid $u: user.overlay.whiteout is refused" "$out" \
	    "refused user.overlay.whiteout ENOTSUP"
	expect_contains "uid $u: user.overlay.opaque is refused" "$out" \
	    "refused user.overlay.opaque ENOTSUP"
	res=$(grep '"id":5' "$T/out$u" | jq -r '.result.structuredContent.stdout')
	expect_eq "uid $u: a check sees every file of d" "$res" \
	    "$(printf 'other\ntest_x')"
	expect_eq "uid $u: the checkout's file has no attribute" \
	    "$(xattrs "$T/ws$u/d/test_x" "$T/ws$u/d")" ""
done

# The same from airlock exec --rw (a host directory bound read-write),
# strict profile too.  Without --rw, exec's writes go to its overlay
# only (the land drops attributes): the sets are not refused there.
mkdir -p "$T/rwdir" "$T/wsx"
: >"$T/rwdir/f"
: >"$T/wsx/g"
chmod 777 "$T/rwdir" "$T/wsx"
chmod 666 "$T/rwdir/f" "$T/wsx/g"
cat >"$T/wsx/set.py" <<'EOP'
import errno, os, sys
for p in sys.argv[1:]:
    try:
        os.setxattr(p, "user.overlay.opaque", b"y")
        print(p, "set")
    except OSError as e:
        print(p, errno.errorcode[e.errno])
EOP
chmod 644 "$T/wsx/set.py"
for strict in "" --strict; do
	out=$(cd "$T/wsx" && timeout 60 "$A" exec $strict --rw "$T/rwdir" -- \
	    python3 set.py "$T/rwdir/f" g 2>&1)
	expect_contains "exec $strict --rw: refused on the bound directory" \
	    "$out" "$T/rwdir/f ENOTSUP"
	out=$(cd "$T/wsx" && timeout 60 "$A" exec $strict -- python3 set.py g 2>&1)
	expect_contains "exec $strict: set in its own overlay" "$out" "g set"
	expect_eq "exec $strict: nothing on the host" \
	    "$(xattrs "$T/rwdir/f" "$T/wsx/g")" ""
done
finish
