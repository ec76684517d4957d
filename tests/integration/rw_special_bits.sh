#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An agent with agent.workspace: rw writes the checkout directly: no
# change set, so no write policy sees its writes.  Run by root, its files
# land owned by the checkout's owner, root: "cp /bin/dash x; chmod 4755
# x" left a setuid-root shell in the checkout for any local user.  Now
# the sandbox's seccomp filter refuses a setuid or setgid mode to every
# call that sets one (chmod, fchmod, fchmodat, fchmodat2, open, openat,
# creat, mknod, mknodat; openat2, whose mode it cannot read, is ENOSYS),
# in both seccomp profiles, when the sandbox writes host paths directly:
# an rw agent, its home, --rw binds.  Played from inside the agent's
# sandbox; a copy-on-write agent still may (commit refuses it:
# cow_session.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
A=$(realpath "$AIRLOCK")
if ! command -v python3 >/dev/null; then
	echo "not ok - python3 is needed to make the raw calls"
	exit 1
fi

# The agent's attempts, each printing OK:<what> when it set the bit.
cat >"$T/attack.py" <<'EOF'
import ctypes, os, stat, sys
libc = ctypes.CDLL(None, use_errno=True)
def attempt(what, fn):
    try:
        fn()
        st = os.lstat(what.split(":")[1])
        if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            print("SET:" + what)
        else:
            print("plain:" + what)
    except OSError as e:
        print("refused:%s:%s" % (what, e.strerror))
os.chdir(sys.argv[1])
open("f1", "w").close(); open("f2", "w").close(); os.mkdir("d1")
attempt("chmod:f1", lambda: os.chmod("f1", 0o4755))
attempt("fchmod:f2", lambda: os.fchmod(os.open("f2", os.O_RDONLY), 0o2755))
attempt("chmod-dir:d1", lambda: os.chmod("d1", 0o2775))
attempt("open:f3", lambda: os.close(os.open("f3", os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("mknod:f4", lambda: os.mknod("f4", stat.S_IFREG | 0o6755))
def fchmodat2():
    if libc.syscall(452, -100, b"f1", 0o4755, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
attempt("fchmodat2:f1", fchmodat2)
attempt("plain:f1", lambda: os.chmod("f1", 0o755))
EOF

for prof in default strict; do
	ws="$T/ws-$prof"
	mkdir -p "$ws"
	cat >"$T/$prof.yaml" <<EOF
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
sandbox:
  seccomp: $prof
agent:
  workspace: rw
EOF
	# The agent's script: /tmp is its own, so the attack goes inline.
	{
		printf '#!/bin/sh\ncp /bin/dash %s/sdash && chmod 4755 %s/sdash; echo "chmod-shell rc=$?"\n' "$ws" "$ws"
		printf "exec python3 - %s <<'PYEOF'\n" "$ws"
		cat "$T/attack.py"
		echo PYEOF
	} >"$T/agent.sh"
	chmod 755 "$T/agent.sh"
	out=$(cd "$ws" && timeout 60 "$A" run --manifest "$T/$prof.yaml" \
	    --workspace "$ws" -- "$T/agent.sh" 2>&1)
	expect_contains "$prof: chmod 4755 of a copied shell fails" "$out" "chmod-shell rc=1"
	for what in chmod:f1 fchmod:f2 chmod-dir:d1 open:f3 mknod:f4 fchmodat2:f1; do
		expect_contains "$prof: $what: refused (EPERM)" "$out" "refused:$what:Operation not permitted"
	done
	expect_contains "$prof: a plain mode is set" "$out" "plain:plain:f1"
	expect_eq "$prof: no setuid or setgid file or directory in the checkout" \
	    "$(find "$ws" -perm /6000 | wc -l)" 0
	check "$prof: the files are there, owned by the checkout's owner" \
	    test "$(stat -c %u "$ws/sdash")" = "$(stat -c %u "$ws")"
done

# airlock exec --rw DIR: a host directory bound writable.
mkdir -p "$T/rwdir"
out=$("$A" exec --rw "$T/rwdir" -- sh -c "cp /bin/dash $T/rwdir/x && chmod 4755 $T/rwdir/x; echo rc=\$?" 2>&1)
expect_contains "exec --rw: chmod 4755 fails" "$out" "rc=1"
expect_eq "exec --rw: no setuid file" "$(find "$T/rwdir" -perm /6000 | wc -l)" 0
# ... but a run without host writes still may, in its own overlay: the
# change set's write policy refuses it (exit 77), nothing lands.
ws="$T/ws-exec"
mkdir -p "$ws"
out=$(cd "$ws" && "$A" exec --workspace "$ws" -- sh -c "cp /bin/dash x && chmod 4755 x && echo SET" 2>&1)
rc=$?
expect_contains "exec (change set): the bit is set in the overlay" "$out" "SET"
expect_eq "exec (change set): refused by the write policy (77)" "$rc" 77
check "exec (change set): nothing landed" test ! -e "$ws/x"
finish
