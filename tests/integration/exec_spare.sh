#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The spare audit writer (supervisor/exec_spare.h): once an exec's log is
# closed, its writer makes the next session ahead and the next airlock
# exec adopts it.  Checked from outside: the second exec's log is written
# by the first exec's writer (session_start's pid) and verifies, carries
# the adopting exec's cwd, and its command ran in a network namespace of
# its own; a prepared session is out of sight until adopted; a changed
# audit.conf or a rotated host key retires the spare; AIRLOCK_EXEC_SPARE=0
# and its time limit are kept; a pipe read to its end does not wait for
# the spare; a spare that serves keeps its socket out of sight and
# refuses an exec that reached it; a dead spare's socket does not stop
# the next exec; the exec
# that adopted a spare and is killed still gets exec_end
# {supervisorLost}.  And attacked: another uid, and a process in another
# mount namespace, that connect to the spare's socket are refused and
# the spare stays for its own user.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"

ws="$T/ws"
mkdir -p "$ws/sub" "$T/conf"
cd "$ws" || exit 1
ST=$AIRLOCK_HOME
# audit.conf is read from here (the test changes it).
export AIRLOCK_CONFIG_DIR="$T/conf"
cfg=$AIRLOCK_CONFIG_DIR

# sock: the published spare's socket ("" when none).
sock() { find "$ST/spare" -maxdepth 1 -name 'exec-*.sock' ! -name '*-held-*' 2>/dev/null | head -n 1; }
# held PID: the socket of writer PID while it serves an exec ("" when none).
held() { find "$ST/spare" -maxdepth 1 -name "exec-*-held-$1.sock" 2>/dev/null | head -n 1; }
has_sock() { [ -n "$(sock)" ]; }
no_sock() { [ -z "$(sock)" ]; }
no_prepared() { [ -z "$(find "$ST/spare" -mindepth 1 -type d)" ]; }
newest_log() { newest_session_log "$ST"; }
start_pid() { head -n 1 "$1" | jq -r '.fields.pid'; }
# hello PATH: what an exec would send, from this process's identity.
hello_py='
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
t0 = time.monotonic()
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:" + e.strerror); sys.exit(0)
# The ids it claims: its own, or argv[4] (a lie the peer credentials catch).
uid = int(sys.argv[4]) if len(sys.argv) > 4 else os.getuid()
h = b"%d\0%d\0%s\0%s\0%s\0" % (uid, uid, sys.argv[2].encode(), sys.argv[3].encode(), b"/")
try:
    s.send(h)
    s.settimeout(10)
    a = s.recv(1)
    print("answer:" + (a.decode() if a else "eof"))
    # How long the answer took, when asked (not the interpreter start).
    if os.environ.get("HELLO_MS_FILE"):
        with open(os.environ["HELLO_MS_FILE"], "w") as f:
            f.write("%d\n" % ((time.monotonic() - t0) * 1000))
except OSError as e:
    print("error:" + str(e))
'

# 1. The first exec forks its writer, which then waits as a spare.
# Its network namespace is held open from here until the end (fd 7): a
# namespace's inode number is given again once it is freed, so comparing
# numbers tells two namespaces apart only while both live.
# The command waits for a line on its stdin (a fifo) until then.
mkfifo "$T/go"
"$AIRLOCK" exec -w "$ws" -- sh -c 'readlink /proc/self/ns/net; read -r x' \
    <"$T/go" >"$T/net1" 2>&1 &
exec1=$!
exec 8>"$T/go"
wait_for grep -q 'net:\[' "$T/net1"
net1=$(head -n 1 "$T/net1")
for p in /proc/[0-9]*; do
	if [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$net1" ]; then
		exec 7<"$p/ns/net" && break
	fi
done
echo go >&8
exec 8>&-
wait "$exec1"
expect_eq "the first run's network namespace is held" \
    "$(readlink /proc/self/fd/7 2>/dev/null)" "$net1"
log1=$(newest_log)
pid1=$(start_pid "$log1")
check "a spare's socket is published after the first exec" wait_for has_sock
wait_for sh -c "[ -n \"\$(find '$ST/spare' -name spare.jsonl)\" ]"
sp=$(spare_pid)
expect_eq "the spare is the first exec's writer" "$sp" "$pid1"
prepared=$(find "$ST/spare" -mindepth 1 -maxdepth 1 -type d | wc -l)
expect_eq "one session is made ahead, under spare/" "$prepared" 1
expect_eq "... its log is not named audit.jsonl (out of sight)" \
    "$(find "$ST/spare" -name audit.jsonl | wc -l)" 0
expect_eq "... and sessions/ holds only the first session" \
    "$(ls "$ST/sessions" | wc -l)" 1

# 2. The second exec adopts it, from another directory.
cd "$ws/sub" || exit 1
net2=$("$AIRLOCK" exec -w "$ws" -- sh -c 'readlink /proc/self/ns/net' 2>&1)
cd "$ws" || exit 1
log2=$(newest_log)
expect_eq "the second session is written by the same writer (adopted)" \
    "$(start_pid "$log2")" "$pid1"
check "... in a session of its own" test "$log1" != "$log2"
expect_eq "... whose session_start has the adopting exec's cwd" \
    "$(head -n 1 "$log2" | jq -r .fields.cwd)" "$ws/sub"
expect_eq "... and exec_end" "$(jq -c 'select(.event == "exec_end") | .fields' "$log2")" '{"exitCode":0}'
"$AIRLOCK" audit verify "$log2" >/dev/null 2>&1
expect_eq "... and the log verifies, closed" "$?" 0
expect_contains "the command ran in a network namespace" "$net2" "net:["
check "... not the host's" test "$net2" != "$(readlink /proc/self/ns/net)"
check "... not the first run's" test "$net2" != "$net1"
check "... not the spare's own" test "$net2" != "$(readlink /proc/"$pid1"/ns/net)"
expect_eq "sessions/ now holds two" "$(ls "$ST/sessions" | wc -l)" 2
pubkey() { head -n 1 "$1" | jq -r .fields.pubkey; }
check "... each under a session key of its own (the writer reuses the key's memory)" \
    test "$(pubkey "$log1")" != "$(pubkey "$log2")"
# The writer made the next session's network namespace ahead on its own
# thread (runner_netns_new()) and went back to the host's.
wait_for sh -c "[ -n \"\$(find '$ST/spare' -name spare.jsonl)\" ]"
expect_eq "the spare, having made the next namespace, is in the host's" \
    "$(readlink /proc/"$pid1"/ns/net)" "$(readlink /proc/self/ns/net)"
# It skips the host key's files while they are unchanged
# (hostkey_ensure()), and notices when one is not: the host key taken
# out of trusted.pub while it waits is put back by the next session it
# makes.
hostpub=$(cat "$ST/keys/audit.pub")
: >"$ST/keys/trusted.pub"
"$AIRLOCK" exec -w "$ws" -- true
expect_eq "... an exec adopts it" "$(start_pid "$(newest_log)")" "$pid1"
check "... and the next session it makes lists the key in trusted.pub again" \
    wait_for grep -q "^$hostpub " "$ST/keys/trusted.pub"

# A run called off before its exec_start (a manifest that does not
# load) adds no session, at once, and the spare stays for the next.
wait_for has_sock
printf 'version: 1\nbogus: [\n' >"$T/bad.yaml"
"$AIRLOCK" exec -w "$ws" --manifest "$T/bad.yaml" -- true >/dev/null 2>&1
expect_eq "a run called off: its exit status" "$?" 78
expect_eq "... no session appears" "$(ls "$ST/sessions" | wc -l)" 3
# The spare publishes itself again once that exec has let it go.
wait_for has_sock
"$AIRLOCK" exec -w "$ws" -- true
expect_eq "... and the same spare serves the next exec" \
    "$(start_pid "$(newest_log)")" "$pid1"
expect_eq "... in a session of its own" "$(ls "$ST/sessions" | wc -l)" 4

# While a spare serves an exec, its socket stays bound under a held name
# (one socket for the writer's life, not one a session): no exec finds
# it there, and one that reached it anyway is refused at once, not left
# to wait for its answer.
wait_for has_sock
ino=$(stat -c %i "$(sock)")
mkfifo "$T/go2"
"$AIRLOCK" exec -w "$ws" -- sh -c 'read -r x' <"$T/go2" >/dev/null 2>&1 &
exec2=$!
exec 8>"$T/go2"
check "an adopted spare's socket is held" wait_for sh -c "[ -n \"\$(find '$ST/spare' -maxdepth 1 -name 'exec-*-held-$pid1.sock')\" ]"
h=$(held "$pid1")
expect_eq "... the same socket" "$(stat -c %i "$h")" "$ino"
expect_eq "... under no name an exec asks" "$(sock)" ""
ans=$(HELLO_MS_FILE="$T/hello.ms" python3 -c "$hello_py" "$h" "$ST" "$cfg" 2>&1)
expect_eq "an exec that reaches a held socket is refused" "$ans" "answer:0"
# From the connect to the answer, the interpreter's start left out (a
# loaded machine can take a second to start python).  A writer that
# left it to wait would not answer at all: its exec waits on the fifo.
# (2.5 s: room for an ASan build on a loaded machine; a few ms here.)
ms=$(cat "$T/hello.ms" 2>/dev/null || echo none)
check "... at once (under 2.5 s: ${ms} ms)" test "$ms" -lt 2500
echo go >&8
exec 8>&-
wait "$exec2"
expect_eq "... and the exec it serves runs to its end" "$?" 0
expect_eq "... written by the spare" "$(start_pid "$(newest_log)")" "$pid1"
check "the held socket is published again" wait_for has_sock
expect_eq "... the same socket" "$(stat -c %i "$(sock)")" "$ino"
expect_eq "... its held name gone" "$(held "$pid1")" ""
# A held name a writer killed while it served left behind is swept when
# a spare is next published; a live writer's stays.
sleep 0 &
gone=$!
wait "$gone"
: >"$ST/spare/exec-0123456789abcdef-held-$gone.sock"
: >"$ST/spare/exec-0123456789abcdef-held-$$.sock"
"$AIRLOCK" exec -w "$ws" -- true
expect_eq "... and the same spare serves the next exec" \
    "$(start_pid "$(newest_log)")" "$pid1"
check "a dead writer's held name is swept" wait_for test ! -e "$ST/spare/exec-0123456789abcdef-held-$gone.sock"
check "... a live one's stays" test -e "$ST/spare/exec-0123456789abcdef-held-$$.sock"
rm -f "$ST/spare/exec-0123456789abcdef-held-$$.sock"

# 3. Attacks on the socket.  Another uid: the state directory lets it
#    reach the socket (0711, the socket 0666), and it sends a
#    well-formed request.
wait_for has_sock
s=$(sock)
expect_eq "the socket is its owner's alone" "$(stat -c %a "$s")" 600
chmod 711 "$T" "$ST" "$ST/spare"
chmod 666 "$s"
ans=$(setpriv --reuid=4242 --regid=4242 --clear-groups /usr/bin/python3 -c "$hello_py" "$s" "$ST" "$cfg" 0 2>&1)
expect_eq "another uid's request, claiming uid 0, is refused" "$ans" "answer:0"
chmod 700 "$T" "$ST" "$ST/spare"
expect_eq "... and the spare stays published" "$(sock)" "$s"
ans=$(unshare -m python3 -c "$hello_py" "$s" "$ST" "$cfg" 2>&1)
expect_eq "a root process in another mount namespace is refused" "$ans" "answer:0"
ans=$(python3 -c "$hello_py" "$s" "$ST/" "$cfg" 2>&1)
expect_eq "a request naming another state directory is refused" "$ans" "answer:0"
"$AIRLOCK" exec -w "$ws" -- true
expect_eq "... and the spare still serves its own user" \
    "$(start_pid "$(newest_log)")" "$pid1"

# 4. A changed audit.conf retires the spare: the exec forks a new writer.
wait_for has_sock
printf '# touched by exec_spare.sh\n' >> "$cfg/audit.conf"
"$AIRLOCK" exec -w "$ws" -- true
pid3=$(start_pid "$(newest_log)")
check "a changed audit.conf: a new writer writes the log" test "$pid3" != "$pid1"
check "... and the old spare exits" wait_for sh -c "! kill -0 $pid1 2>/dev/null"

# 5. A rotated host key retires the spare too.
wait_for has_sock
"$AIRLOCK" audit key --rotate >/dev/null 2>&1
"$AIRLOCK" exec -w "$ws" -- true
log4=$(newest_log)
check "a rotated host key: a new writer" test "$(start_pid "$log4")" != "$pid3"
"$AIRLOCK" audit verify --key "$ST/keys/audit.pub" "$log4" >/dev/null 2>&1
expect_eq "... whose log is certified by the new key" "$?" 0

# 6. A pipe read to its end does not wait for the spare.
t0=$(date +%s%N)
out=$("$AIRLOCK" exec -w "$ws" -- echo piped)
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
expect_eq "a command substitution gets the output" "$out" "piped"
# (A spare waits 30 s; an exec under ASan on a loaded machine has
# taken over 5 s.)
check "... and returns at once, not when the spare leaves ($ms ms < 15 s)" test "$ms" -lt 15000

# 7. A spare killed where it waits leaves its socket's name behind: the
#    next exec is not stopped by it and publishes a spare of its own.
wait_for has_sock
dead=$(spare_pid)
kill -9 "$dead"
wait_for sh -c "! kill -0 $dead 2>/dev/null"
"$AIRLOCK" exec -w "$ws" -- true
expect_eq "after a spare died, exec still runs" "$?" 0
check "... written by a new writer" test "$(start_pid "$(newest_log)")" != "$dead"
check "... which publishes a new spare" wait_for sh -c "[ -n \"\$(find '$ST/spare' -name 'exec-*.sock')\" ]"
check "... a live one" test -n "$(spare_pid)"

# 8. The exec that adopted a spare is killed: exec_end {supervisorLost}.
#    The newest log before it is the last run's, which has an exec_start
#    of its own: wait for another one.
wait_for has_sock
before=$(newest_log)
"$AIRLOCK" exec -w "$ws" -- sleep 30 &
ex=$!
new_started() { l=$(newest_log); [ "$l" != "$before" ] && grep -q exec_start "$l"; }
wait_for new_started
lost=$(newest_log)
check "the killed exec's session is a new one" test "$lost" != "$before"
kill -9 "$ex"
wait "$ex" 2>/dev/null || :
wait_for grep -q exec_end "$lost"
expect_eq "a killed exec's adopted writer ends its log" \
    "$(jq -c 'select(.event == "exec_end") | .fields' "$lost")" '{"supervisorLost":true}'

# An ordinary user's execs share a spare of their own (no network
# namespace made ahead: the sandbox's clone makes it).
U=4242
chmod 755 "$T"
mkdir -p "$T/st$U" "$T/ws$U"
chown "$U:$U" "$T/st$U" "$T/ws$U"
as_uid "$U" "$AIRLOCK" exec -w "$T/ws$U" -- true
# The spare publishes its socket after the exec returns: wait for it
# (an exec that comes before it forks a writer of its own, by design).
wait_for sh -c "ls '$T/st$U'/airlock/spare/exec-*.sock >/dev/null 2>&1"
as_uid "$U" "$AIRLOCK" exec -w "$T/ws$U" -- true
ulogs=$(ls -t "$T/st$U"/airlock/sessions/*/audit.jsonl 2>/dev/null)
expect_eq "uid $U: two sessions" "$(printf '%s\n' "$ulogs" | grep -c .)" 2
expect_eq "uid $U: the second adopted the first's writer" \
    "$(for l in $ulogs; do start_pid "$l"; done | sort -u | wc -l)" 1
as_uid "$U" "$AIRLOCK" audit verify $(printf '%s\n' "$ulogs" | head -n 1) >/dev/null 2>&1
expect_eq "uid $U: ... and its log verifies" "$?" 0
chmod 700 "$T"

# What a spare that died left (older than two hours): swept when the next
# spare is published, unless its log holds a byte (evidence stays).
mkdir -p "$ST/spare/20200101T000000-aaaaaa/artifacts" "$ST/spare/20200101T000000-bbbbbb/artifacts"
: >"$ST/spare/20200101T000000-aaaaaa/spare.jsonl"
echo '{}' >"$ST/spare/20200101T000000-bbbbbb/spare.jsonl"
touch -d '3 hours ago' "$ST/spare/20200101T000000-aaaaaa" "$ST/spare/20200101T000000-bbbbbb"
"$AIRLOCK" exec -w "$ws" -- true
wait_for sh -c "! test -e '$ST/spare/20200101T000000-aaaaaa'"
check "a dead spare's empty session is swept" test ! -e "$ST/spare/20200101T000000-aaaaaa"
check "... one whose log is not empty stays" test -s "$ST/spare/20200101T000000-bbbbbb/spare.jsonl"

# 9. AIRLOCK_EXEC_SPARE=0: not adopted, and no spare made.
wait_for has_sock
kill -9 "$(spare_pid)"
rm -rf "$ST/spare"
AIRLOCK_EXEC_SPARE=0 "$AIRLOCK" exec -w "$ws" -- true
sleep 0.5
expect_eq "AIRLOCK_EXEC_SPARE=0: no spare is published" "$(sock)" ""
# 10. Its seconds are kept: a spare of one second is gone after it.
AIRLOCK_EXEC_SPARE=1 "$AIRLOCK" exec -w "$ws" -- true
check "AIRLOCK_EXEC_SPARE=1: a spare is published" wait_for has_sock
sp=$(spare_pid)
sleep 1.5
check "... and gone a second later, its socket" wait_for no_sock
check "... its prepared session" wait_for no_prepared
check "... and its process" wait_for sh -c "! kill -0 $sp 2>/dev/null"
finish
