#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Crash-safe apply (issue 12): the process applying a change set is killed
# for real in the middle (strace injects SIGKILL into its Nth rename,
# unlink or file creation), then the next airlock on the workspace rolls
# the apply back -- or, killed after the commit point, finishes it --
# before doing anything
# else: the workspace is then exactly the before (or after) state, modes,
# owners, symlinks and contents included, with no trash and no temporary
# file left.  Crash points: writing the journal, the first removal, among
# the removals, among the writes, the commit, the trash removal; as root
# and as uid 4242 (a tmpfs upper layer, files copied; for uid 4242 on a
# kernel without user.* attributes on tmpfs, before 6.6, the upper layer
# is on the disk and the files are moved out of it: the moves and the
# commit are the crash points then).  The next start of airlock serve recovers too, and
# audits it as apply_recovered.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
# LeakSanitizer cannot run under ptrace (an ASan build's airlock would
# exit 1 with "LeakSanitizer has encountered a fatal error"): leaks are
# checked by every other test of the sanitizer build.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if ! command -v strace >/dev/null; then
	echo "not ok - strace is needed to kill the apply at a chosen step (apt-get install strace)"
	exit 1
fi
chmod 755 "$T"
U=4242

# The workspace before: 300 files in 3 directories, a symlink, a tree to
# be deleted, a setgid directory whose mode changes, an executable.
pristine="$T/pristine"
mkdir -p "$pristine/a" "$pristine/b" "$pristine/c" "$pristine/gone/deep" "$pristine/modes"
for i in $(seq 1 100); do
	echo "a$i" >"$pristine/a/f$i"
	echo "b$i" >"$pristine/b/f$i"
	echo "c$i" >"$pristine/c/f$i"
done
echo deep >"$pristine/gone/deep/x"
echo run >"$pristine/a/tool.sh"
chmod 755 "$pristine/a/tool.sh"
chmod 700 "$pristine/modes"
ln -s a/f1 "$pristine/link"
echo file >"$pristine/becomes-dir"

# The change: 200 files modified, 50 deleted, a tree deleted, 500 files
# added in new directories, a file replaced by a directory, a symlink
# retargeted, a directory's mode changed.
cat >"$T/change.sh" <<'EOF'
set -e
for i in $(seq 1 100); do echo "A$i" >a/f$i; echo "B$i" >b/f$i; done
for i in $(seq 1 50); do rm c/f$i; done
rm -r gone
mkdir -p new/x new/y
for i in $(seq 1 250); do echo "x$i" >new/x/n$i; echo "y$i" >new/y/n$i; done
rm becomes-dir; mkdir becomes-dir; echo inside >becomes-dir/f
ln -sfn b/f2 link
chmod g-s modes && chmod 755 modes
EOF

# state DIR: every name with its type, mode, owner, link target and
# content digest.
state() {
	(cd "$1" && find . -printf '%P|%y|%m|%u|%g|%l\n' | LC_ALL=C sort &&
	    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum)
}

# reset OWNER: the workspace back to the pristine copy.
reset() {
	rm -rf "$T/ws"
	cp -a "$pristine" "$T/ws"
	chown -R "$1:$1" "$T/ws"
	chmod 2700 "$T/ws/modes"	# a setgid directory: its old mode comes back whole
}

# as OWNER CMD...: CMD as root, or as uid OWNER with its own state.
as() {
	local u=$1
	shift
	if [ "$u" = 0 ]; then
		"$@"
	else
		setpriv --reuid="$u" --regid="$u" --clear-groups env \
		    -u AIRLOCK_HOME -u AIRLOCK_RUNTIME_DIR \
		    HOME="$T/st$u" XDG_STATE_HOME="$T/st$u" XDG_RUNTIME_DIR="$T/st$u" "$@"
	fi
}


# crash OWNER WHAT SYSCALL N EXPECT: kills the apply at the Nth SYSCALL,
# recovers with the next airlock exec, and compares with EXPECT's state.
crash() {
	local u=$1 what=$2 sc=$3 n=$4 want=$5 err
	reset "$u"
	as "$u" strace -o /dev/null -e trace="$sc" -e inject="$sc":signal=SIGKILL:when="$n" \
	    "$AIRLOCK" exec --workspace "$T/ws" -- sh -c "$(cat "$T/change.sh")" >/dev/null 2>&1
	check "uid $u, killed $what: the apply was interrupted (a trash directory is left)" \
	    compgen -G "$T/ws/.airlock-trash-*" >/dev/null
	err=$(as "$u" "$AIRLOCK" exec --workspace "$T/ws" -- true 2>&1)
	expect_contains "uid $u, killed $what: the next airlock exec recovers first" "$err" "an interrupted apply"
	state "$T/ws" >"$T/now"
	if cmp -s "$T/now" "$T/$want"; then
		pass "uid $u, killed $what: the workspace is exactly the $want state"
	else
		fail "uid $u, killed $what: the workspace is exactly the $want state"
		diff "$T/$want" "$T/now" | head -20
	fi
}

# One whole apply traced first, to find the calls to kill.
for u in 0 $U; do
	mkdir -p "$T/st$u"
	chown "$u:$u" "$T/st$u"
	reset "$u"
	state "$T/ws" >"$T/before"
	as "$u" strace -o "$T/st$u/trace" -e trace=renameat,renameat2,unlinkat,openat "$AIRLOCK" exec --workspace "$T/ws" -- sh -c "$(cat "$T/change.sh")"
	expect_eq "uid $u: the change applies whole without a crash" "$?" 0
	state "$T/ws" >"$T/after"
	check "uid $u: no trash left after an apply" test -z "$(compgen -G "$T/ws/.airlock-*")"
	differ() { ! cmp -s "$1" "$2"; }
	check "uid $u: the change is real (before and after differ)" differ "$T/before" "$T/after"
	# The Nth call of a syscall, counted as strace counts for inject.
	nth() { grep -E "^$1\(" "$T/st$u/trace" | grep -n "$2" | head -1 | cut -d: -f1; }
	journal=$(nth renameat '"journal.tmp"')
	first_removal=$(nth renameat '", [0-9]*, "0")')
	commit=$(nth renameat '"journal", [0-9]*, "done")')
	# The 250th file created in place (root: copied from the tmpfs).
	mid_write=$(grep -E '^openat\(' "$T/st$u/trace" | grep -n 'O_CREAT|O_EXCL' | sed -n 250p | cut -d: -f1)
	first_unlink_after=$(grep -E '^(renameat|unlinkat)\(' "$T/st$u/trace" |
	    awk '/"done"\)/ { c = 1; next } c && /^unlinkat/ { print n + 1; exit } /^unlinkat/ { n++ }')
	moves=$(grep -c '^renameat2(' "$T/st$u/trace")
	if [ "$u" = 0 ] || [ "$moves" -le 500 ]; then
		# The upper layer is a tmpfs (root's; an ordinary user's
		# since Linux 6.6, made in a user namespace): every file is
		# copied from it.
		crash $u "writing the journal" renameat "$journal" before
		crash $u "at the first removal" renameat "$first_removal" before
		crash $u "among the removals" renameat $((first_removal + 120)) before
		crash $u "among the writes" openat "$mid_write" before
		crash $u "at the commit point" renameat "$commit" before
		crash $u "removing the trash after the commit" unlinkat "$first_unlink_after" after
	else
		# An ordinary user's upper layer on the workspace's
		# filesystem (a kernel whose tmpfs has no user.* attributes,
		# before 6.6: airlock warns): files are moved out of it
		# (renameat2), so finishing is impossible and rolling back is
		# the way.
		echo "# uid $u: no tmpfs upper layer on this kernel: the moves are tested"
		crash $U "among the moves out of the upper layer" renameat2 $((moves / 2)) before
		crash $U "at the commit point" renameat "$commit" before
	fi
done

# airlock serve recovers on start, before anything else, and audits it.
mcp_env
reset 0
state "$T/ws" >"$T/before"
strace -o /dev/null -e trace=renameat -e inject=renameat:signal=SIGKILL:when=100 \
    "$AIRLOCK" exec --workspace "$T/ws" -- sh -c "$(cat "$T/change.sh")" >/dev/null 2>&1
check "serve: an interrupted apply is there" compgen -G "$T/ws/.airlock-trash-*" >/dev/null
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  nothing: ["true"]
EOF
mcp_start "$T/m.yaml" "$T/ws"
mcp_call run_check '{"checkId":"nothing"}' 60
expect_eq "serve: the session starts and runs a check" "$(jr .result.structuredContent.exitCode)" 0
mcp_stop
state "$T/ws" >"$T/now"
check "serve: the workspace is exactly the before state" cmp -s "$T/now" "$T/before"
sess=$(newest_session)
check "serve: the recovery is audited as apply_recovered, rolled back" \
    grep -q '"apply_recovered".*"rolled_back"' "$sess/audit.jsonl"

# A journal that cannot be read: the workspace may be half-applied, so
# nothing starts.
reset 0
mkdir "$T/ws/.airlock-trash-0123456789abcdef"
echo '{"version": 1, "removals": [' >"$T/ws/.airlock-trash-0123456789abcdef/journal"
out=$("$AIRLOCK" exec --workspace "$T/ws" -- true 2>&1)
expect_eq "a corrupt journal: exec refuses to run (74)" "$?" 74
expect_contains "a corrupt journal: says why" "$out" "apply journal cannot be read"
check "a corrupt journal: the trash is kept for a human" test -d "$T/ws/.airlock-trash-0123456789abcdef"
"$AIRLOCK" serve --manifest "$T/m.yaml" --workspace "$T/ws" </dev/null >/dev/null 2>"$T/serve-corrupt.err"
expect_eq "a corrupt journal: airlock serve refuses to start" "$?" 1
expect_contains "a corrupt journal: serve says why" "$(cat "$T/serve-corrupt.err")" "apply journal cannot be read"
check "a corrupt journal: serve keeps the trash too" test -d "$T/ws/.airlock-trash-0123456789abcdef"

# Killed as it made the key that seals journals (the first apply of a
# host: open with O_CREAT, then write and fsync): the key file was left
# empty, every later load refused it, and no apply landed again, in any
# session (exec and serve: "nothing was applied: apply journal: Bad
# message") until a human removed it.  An empty key file is made now as
# if absent, under a lock.  So for the audit log's host key.
reset 0
export AIRLOCK_HOME="$T/fresh"
mkdir -p "$AIRLOCK_HOME"
"$AIRLOCK" audit key >/dev/null 2>&1
strace -f -o /dev/null -P "$AIRLOCK_HOME/keys/apply.key" -e trace=write \
    -e inject=write:signal=SIGKILL \
    "$AIRLOCK" exec --workspace "$T/ws" -- sh -c 'echo x >made' >/dev/null 2>&1
expect_eq "killed making the apply key: it was left empty" \
    "$(stat -c %s "$AIRLOCK_HOME/keys/apply.key")" 0
out=$("$AIRLOCK" exec --workspace "$T/ws" -- sh -c 'echo y >made2' 2>&1)
expect_eq "... the next apply lands all the same" "$?" 0
check "... its file is there" test -f "$T/ws/made2"
expect_not_contains "... no journal refused" "$out" "Bad message"
expect_eq "... the key is made whole" \
    "$(stat -c %s "$AIRLOCK_HOME/keys/apply.key")" 32
# (a home of its own: the exec's audit writer above may still be at work)
export AIRLOCK_HOME="$T/fresh2"
mkdir -p "$AIRLOCK_HOME"
strace -f -o /dev/null -P "$AIRLOCK_HOME/keys/audit.key" -e trace=write \
    -e inject=write:signal=SIGKILL "$AIRLOCK" audit key >/dev/null 2>&1
expect_eq "killed making the audit host key: it was left empty" \
    "$(stat -c %s "$AIRLOCK_HOME/keys/audit.key")" 0
"$AIRLOCK" audit key >/dev/null 2>&1
expect_eq "... the next airlock audit key makes it" "$?" 0
expect_eq "... whole" "$(stat -c %s "$AIRLOCK_HOME/keys/audit.key")" 32
finish
