#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The group of what a run makes in a setgid (group-shared) directory of
# the checkout.  The kernel gives a file made there the directory's
# group (and a directory made there the bit too, so what is made beneath
# it as well); a run's set landed it with the workspace root's group
# instead, and the group-write bit of a umask of 002 (which lands) went
# to that group.  A user of group team (4243: the runner's group, as
# `sg team` gives it) whose checkout's root belongs to the wide group
# users (4244) had team/ 2775 team, and a run's team/f landed 0664
# users: writable by every user in users.  Now it lands with the
# directory's group, through the broker (an exec tool) and airlock
# exec, from inside the sandbox; and a directory made there lands with
# the setgid bit the kernel gave it (it landed without it, and the files
# the owner made in it afterwards had the owner's group).  (As root the runner sees only the
# root's group on an idmapped mount: a directory of another group is
# not written at all.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "not ok - needs root and setpriv (to be uid 4242 of groups 4243 and 4244)"
	exit 1
fi
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/team/old"
printf 'x\n' >"$ws/team/mod"
chown -R 4242:4244 "$ws" "$AIRLOCK_HOME" "$AIRLOCK_RUNTIME_DIR"
chgrp -R 4243 "$ws/team"
chmod 2775 "$ws/team" "$ws/team/old"
A=$(realpath "$AIRLOCK")
# airlock as uid 4242, group 4243 (its runner's), also in group 4244.
cat >"$T/al" <<EOF2
#!/bin/sh
exec setpriv --reuid=4242 --regid=4243 --groups=4244 env HOME="$AIRLOCK_HOME" "$A" "\$@"
EOF2
chmod 755 "$T/al"
AIRLOCK=$T/al
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
EOF2
grp() { stat -c '%g %a' "$ws/$1" 2>&1; }

mcp_start "$T/m.yaml" "$ws"
mcp_call sh "{\"command\":$(js 'umask 002; echo x >team/f && mkdir -p team/d/e && echo y >team/d/e/g && ln -s f team/l && echo z >team/old/h && echo w >>team/mod && echo p >top')}" 60
expect_ok_result "the set lands"
expect_eq "the run wrote it all" "$(jr .result.structuredContent.exitCode)" 0
mcp_stop
expect_eq "a file made in the setgid directory has its group" "$(grp team/f)" "4243 664"
expect_eq "a directory made there too, with the bit (as the kernel gives it)" "$(grp team/d)" "4243 2775"
expect_eq "and what is made beneath it" "$(grp team/d/e) $(grp team/d/e/g)" "4243 2775 4243 664"
# The owner's own file there later, outside any sandbox: the directory
# landed without the setgid bit, and this file had the owner's group.
setpriv --reuid=4242 --regid=4244 --groups=4243 sh -c "umask 002; echo o >'$ws/team/d/later'"
expect_eq "the owner's later file in that directory has the shared group" "$(grp team/d/later)" "4243 664"
expect_eq "a symlink made there" "$(stat -c %g "$ws/team/l")" 4243
expect_eq "a file made in a setgid directory beneath it" "$(grp team/old/h)" "4243 664"
expect_eq "a modified file keeps its own group" "$(grp team/mod)" "4243 644"
expect_eq "a file made at the root (not setgid) has its group" "$(grp top)" "4244 664"
expect_eq "nothing in team/ has the root's group" "$(find "$ws/team" -gid 4244)" ""

# airlock exec lands the same way.
(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c 'umask 002; echo x >team/xf; mkdir team/xd; echo y >team/xd/g') >"$T/exec.out" 2>&1
expect_eq "exec: a file made in the setgid directory has its group" "$(grp team/xf)" "4243 664"
expect_eq "exec: and a directory, and what is beneath it" "$(grp team/xd) $(grp team/xd/g)" "4243 2775 4243 664"
finish
