#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy runs as the sandboxes' uid without root (the user's
# own; under root it ran as 65534 too, until it had a uid of its own:
# proxy_own_uid.sh), and the kernel's pipe budget is per user
# (fs.pipe-user-pages-soft, 64 MiB): a sandbox that holds 64 pipes of
# 1 MiB makes every later pipe of that uid 8 KiB, the proxy's relay pipes
# for other sessions included (they were 256 KiB; a 500 MiB download over
# loopback went from about 1.8 GB/s to 0.65).  Now a relay whose pipe
# cannot be made 256 KiB copies through its 128 KiB buffer instead (at
# the usual speed).  The test runs its sandboxes and proxy as a uid of
# its own, not 65534: exhausting that uid's budget would shrink the
# pipes of every other test running beside it.
if [ -z "${AIRLOCK_PIPE_TEST_NS:-}" ]; then
	AIRLOCK_PIPE_TEST_NS=1 exec unshare --net --mount sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
H="$top_builddir/tests/proxy_helper"
command -v python3 >/dev/null || { echo "not ok - python3 is missing"; exit 1; }
if [ "$(cat /proc/sys/fs/pipe-user-pages-soft)" = 0 ]; then
	echo "# fs.pipe-user-pages-soft is 0: no per-user pipe budget to exhaust"
	exit 77
fi
"$H" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
U=$((61000 + $$ % 1000))
chmod 755 "$T"
ws=$(make_workspace)
mkdir "$T/st$U"
chown -R "$U:$U" "$ws" "$T/st$U"
A="$T/atk" D="$T/io"
mkdir "$A" "$D"
chmod 777 "$D"

# The origin: says hello on each connection and holds it until the client
# closes.
cat > "$T/origin.py" <<'PY'
import socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
def serve(c):
    c.sendall(b"hello from the origin\n")
    while c.recv(4096):
        pass
while True:
    threading.Thread(target=serve, args=(s.accept()[0],), daemon=True).start()
PY
python3 "$T/origin.py" "$T/port" &
OPID=$!
at_exit 'kill "$OPID" 2>/dev/null; touch "$D/done"'
wait_for test -s "$T/port" || { echo "not ok - the origin did not start"; exit 1; }
SP=$(cat "$T/port")

# The hog: pipes of the largest size until a new pipe is small.
cat > "$A/hog.py" <<'PY'
import fcntl, os, sys, time
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
big = int(sys.argv[2])		# fs.pipe-max-size (no /proc/sys inside)
held = []
while True:
    r, w = os.pipe()
    held.append((r, w))
    size = fcntl.fcntl(w, F_GETPIPE_SZ)
    if size < 65536:
        break
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, big)
    except OSError:
        pass
open(sys.argv[1] + "/hog.txt", "w").write("%d pipes; a new one holds %d bytes\n" % (len(held), size))
open(sys.argv[1] + "/hog-up", "w").close()
for i in range(600):
    if os.path.exists(sys.argv[1] + "/done"):
        break
    time.sleep(0.05)
PY
# The client: a CONNECT tunnel to the origin, held open.
cat > "$A/tunnel.sh" <<'SH'
#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/3128 || exit 3
printf 'CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n' "$1" >&3
for i in 1 2 3; do read -r -t 10 line <&3; echo "$line" | tr -d '\r'; done > "$2/tunnel.txt"
touch "$2/tunnel-up"
while [ ! -e "$2/done" ]; do sleep 0.05; done
SH
chmod 755 "$A/tunnel.sh"

as_uid "$U" "$AIRLOCK" exec --workspace "$ws" --ro "$A" --rw "$D" \
    -- python3 "$A/hog.py" "$D" "$(cat /proc/sys/fs/pipe-max-size)" \
    >"$T/hog.out" 2>&1 &
HOG=$!
check "the hog is up (sanity)" wait_for test -e "$D/hog-up"
expect_contains "... and its uid's pipe budget is spent (sanity)" \
    "$(cat "$D/hog.txt" 2>/dev/null)" "a new one holds 8192 bytes"
as_uid "$U" "$AIRLOCK" exec --workspace "$ws" --ro "$A" --rw "$D" \
    --allow-host "127.0.0.1:$SP" -- "$A/tunnel.sh" "$SP" "$D" >"$T/tun.out" 2>&1 &
TUN=$!
check "another session's tunnel is up (sanity)" wait_for test -e "$D/tunnel-up"
expect_eq "... and relays" "$(cat "$D/tunnel.txt")" \
    "$(printf 'HTTP/1.1 200 Connection established\n\nhello from the origin')"

# The proxy: the process of uid $U whose child (the resolver keeper) has
# the resolvers for children.
proxy=
for p in $(pgrep -u "$U"); do
	for c in $(pgrep -P "$p"); do
		[ "$(pgrep -P "$c" | wc -l)" -ge 4 ] && proxy=$p
	done
done
check "the proxy is found (sanity)" test -n "$proxy"
# Its pipes past stdio (the relay's, both ends held), by size.
sizes=$(python3 - "$proxy" <<'PY'
import collections, fcntl, os, sys
p = sys.argv[1]
ends = collections.defaultdict(list)
for fd in os.listdir("/proc/%s/fd" % p):
    t = os.readlink("/proc/%s/fd/%s" % (p, fd))
    if int(fd) > 2 and t.startswith("pipe:"):
        ends[t].append(fd)
out = []
for t, fds in ends.items():
    if len(fds) == 2:
        f = os.open("/proc/%s/fd/%s" % (p, fds[0]), os.O_RDONLY | os.O_NONBLOCK)
        out.append(fcntl.fcntl(f, 1032))
        os.close(f)
print(" ".join(str(s) for s in sorted(out)))
PY
)
expect_eq "the proxy relays through no pipe smaller than 256 KiB (got: $sizes)" \
    "$(for s in $sizes; do [ "$s" -lt 262144 ] && echo "$s"; done)" ""
touch "$D/done"
wait "$HOG" "$TUN"
finish
