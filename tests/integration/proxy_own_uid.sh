#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The egress proxy parses bytes that come straight from sandboxed code,
# and ran as uid 65534, the uid of every sandbox of every session.  A
# sandbox that took the proxy over (a bug in its parser) held, in the
# host's pid and mount namespaces, the uid of every other sandbox's
# processes and the owner of their user namespaces: /proc/PID/environ
# (a tool's granted secrets), /proc/PID/mem (their code), /proc/PID/root
# (their workspace, whose writes land) and signals were all open to it,
# and its seccomp filter allows open, read and write.  Now the proxy has
# a uid of its own (65533, or AIRLOCK_PROXY_UID), refused when it names
# an account, a group or a subordinate range, and a runner may not have
# it.  The attacker here is a process with the live proxy's credentials
# (uid, gid, no groups, no capabilities, no_new_privs) in its
# namespaces, turned against a sandboxed command served by that proxy.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || { echo "# needs root (the proxy changes uid only as root)"; exit 77; }
command -v python3 >/dev/null || { echo "not ok - python3 is missing"; exit 1; }
chmod 755 "$T"
ws="$T/ws" A="$T/atk" D="$T/io"
mkdir -p "$ws" "$A" "$D"
chmod 777 "$D"
echo original >"$ws/f.txt"

cat >"$T/origin.py" <<'PY'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
while True:
    c = s.accept()[0]
    c.sendall(b"hello from the origin\n")
    c.close()
PY
python3 "$T/origin.py" "$T/port" &
OPID=$!
at_exit 'kill "$OPID" 2>/dev/null; touch "$D/done"'
wait_for test -s "$T/port" || { echo "not ok - the origin did not start"; exit 1; }
SP=$(cat "$T/port")

# The victim: a sandboxed command with a secret, talking through its proxy.
cat >"$A/victim.sh" <<'SH'
#!/bin/bash
exec 3<>/dev/tcp/127.0.0.1/3128 || exit 3
printf 'CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n' "$1" >&3
for i in 1 2 3; do read -r -t 10 line <&3; echo "$line" | tr -d '\r'; done >"$2/tunnel.txt"
exec 3<&-
touch "$2/up"
while [ ! -e "$2/done" ]; do sleep 0.05; done
SH
chmod 755 "$A/victim.sh"
timeout 60 "$AIRLOCK" exec --workspace "$ws" --ro "$A" --rw "$D" \
    --allow-host "127.0.0.1:$SP" --setenv SECRET_TOKEN s3cr3t-of-session-b \
    -- "$A/victim.sh" "$SP" "$D" >"$T/out" 2>"$T/err" &
tpid=$!
check "the victim is up (sanity)" wait_for test -e "$D/up"
expect_eq "... and reached its origin through the proxy (sanity)" \
    "$(cat "$D/tunnel.txt")" \
    "$(printf 'HTTP/1.1 200 Connection established\n\nhello from the origin')"
found() { proxy=$(exec_proxy_pid "$tpid") && [ -n "$proxy" ]; }
check "the exec's proxy is found (sanity)" wait_for found
victim=$(pgrep -f "^/bin/bash $A/victim.sh" | head -n 1)
check "the victim's host pid is found (sanity)" test -n "$victim"
field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$2/status"; }
puid=$(field Uid "${proxy:-0}") pgid=$(field Gid "${proxy:-0}")
vuid=$(field Uid "${victim:-0}")
for ns in pid mnt; do
	expect_eq "the proxy is in this $ns namespace (sanity: the attacker sees what it sees)" \
	    "$(readlink "/proc/${proxy:-0}/ns/$ns")" "$(readlink "/proc/self/ns/$ns")"
done
expect_eq "the proxy runs as its own uid, 65533 by default" "$puid:$pgid" 65533:65533
check "... which is not the sandbox's ($vuid)" test "$puid" != "$vuid"

# as_proxy CMD...: CMD with the proxy's credentials (a proxy taken over).
as_proxy() {
	setpriv --reuid="$puid" --regid="$pgid" --clear-groups --no-new-privs "$@"
}
# The control: the sandbox's own uid reads it (the attack is real).
expect_contains "the sandbox's uid reads the victim's environment (sanity)" \
    "$(setpriv --reuid="$vuid" --regid="$vuid" --clear-groups --no-new-privs \
        cat "/proc/$victim/environ" 2>&1 | tr '\0' '\n')" \
    SECRET_TOKEN=s3cr3t-of-session-b
out=$(as_proxy cat "/proc/$victim/environ" 2>&1 | tr '\0' '\n')
expect_not_contains "the proxy's uid does not read the victim's secret" \
    "$out" s3cr3t
expect_contains "... refused by the kernel (EACCES)" "$out" "Permission denied"
out=$(as_proxy /usr/bin/python3 -c '
import sys
try:
    open("/proc/%s/mem" % sys.argv[1], "r+b", 0)
    print("opened")
except OSError as e:
    print(e.strerror)' "$victim" 2>&1)
expect_eq "the proxy's uid cannot open the victim's memory for writing" \
    "$out" "Permission denied"
out=$(as_proxy sh -c 'echo pwned >"/proc/$1/root$2/f.txt"' sh "$victim" "$ws" 2>&1)
expect_contains "the proxy's uid cannot write the victim's workspace" \
    "$out" "Permission denied"
out=$(as_proxy kill -0 "$victim" 2>&1)
expect_contains "the proxy's uid cannot signal the victim" \
    "$out" "Operation not permitted"
touch "$D/done"
wait "$tpid"
expect_eq "the victim ran to its end" "$?" 0
expect_eq "... and its workspace holds what it held" "$(cat "$ws/f.txt")" original

# The uid a deployer names, and the ones refused.
U=$((61000 + $$ % 1000))
while getent passwd "$U" >/dev/null || getent group "$U" >/dev/null; do
	U=$((U + 1))
done
AIRLOCK_PROXY_UID=$U "$AIRLOCK" proxy --listen 127.0.0.1:0 \
    --port-file "$T/pport" --allow example.com:443 2>"$T/perr" &
ppid=$!
check "a standalone proxy starts (sanity)" wait_for test -s "$T/pport"
expect_eq "AIRLOCK_PROXY_UID=$U names the proxy's uid and gid" \
    "$(field Uid "$ppid"):$(field Gid "$ppid")" "$U:$U"
kill "$ppid"
wait "$ppid"
refused() {
	AIRLOCK_PROXY_UID=$1 "$AIRLOCK" exec --workspace "$ws" \
	    --allow-host example.com:443 -- true >"$T/rout" 2>&1
	echo "$?: $(cat "$T/rout")"
}
nobody=$(getent passwd 65534 | cut -d: -f1)
expect_contains "an account's uid is refused" "$(refused 65534)" \
    "71: airlock: exec: cannot start the egress proxy: the egress proxy's uid 65534 is the account $nobody (set AIRLOCK_PROXY_UID to an unused uid)"
g=$(getent group | awk -F: '{ print $3 }' | while read -r g; do
	getent passwd "$g" >/dev/null || { echo "$g"; break; }; done)
expect_contains "a group's gid is refused (group $g)" "$(refused "$g")" \
    "the egress proxy's uid $g is the gid of the group $(getent group "$g" | cut -d: -f1)"
for bad in 0 abc 4294967295 0123; do
	expect_contains "AIRLOCK_PROXY_UID=$bad is refused" "$(refused "$bad")" \
	    "AIRLOCK_PROXY_UID=$bad is not a uid from 1 to 4294967294"
done
# A subordinate range, in a mount namespace of the test's own whose /etc
# is an overlay with a subuid file.
mkdir "$T/up" "$T/wk"
out=$(AIRLOCK_PROXY_UID=$U unshare --mount --propagation private sh -c '
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/wk" /etc &&
	echo "alice:$(($2 - 10)):65536" >/etc/subuid &&
	"$3" exec --workspace "$4" --allow-host example.com:443 -- true 2>&1
	echo "status $?"' sh "$T" "$U" "$AIRLOCK" "$ws")
expect_contains "a uid in an account's subordinate range is refused" "$out" \
    "the egress proxy's uid $U is in a subordinate range of alice"
expect_contains "... and the exec does not run" "$out" "status 71"
# Through a session: the networked call fails, with the reason.
cat >"$T/m.yaml" <<'YAML'
tools:
  - name: fetch
    input: {}
    output: { exitCode: integer, stdout: string }
    sideEffect: network
    authorization: allow
    timeoutMs: 10000
    command: ["true"]
    network: ["example.com:443"]
YAML
acct=$(getent passwd | awk -F: '$3 != 0 && $3 != 65534 { print $3 ":" $1; exit }')
out=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch","arguments":{}}}' |
    AIRLOCK_PROXY_UID=${acct%%:*} timeout 60 "$AIRLOCK" serve --manifest "$T/m.yaml" \
    --workspace "$ws" | grep '"id":2')
expect_contains "a session's networked call is refused (sandbox_setup)" "$out" 'errorClass\":\"sandbox_setup'
expect_contains "... naming the uid's account" "$out" \
    "egress for the runner: cannot start the egress proxy: the egress proxy's uid ${acct%%:*} is the account ${acct#*:}"
# A uid the kernel would refuse: airlock as root of a user namespace that
# maps root alone.
out=$(unshare --user --map-root-user "$AIRLOCK" exec --workspace "$ws" \
    --allow-host example.com:443 -- true 2>&1; echo "status $?")
expect_contains "a uid not mapped in airlock's user namespace is refused" "$out" \
    "the egress proxy's uid 65533 is not mapped in airlock's user namespace (set AIRLOCK_PROXY_UID to an unused uid)"
expect_contains "... and the exec does not run" "$out" "status 71"
# A runner may not have the proxy's uid, network or not.
out=$(AIRLOCK_PROXY_UID=65534 "$AIRLOCK" exec --workspace "$ws" -- true 2>&1)
expect_contains "a runner of the proxy's uid is refused" "$out" \
    "the runner uid/gid must not be the egress proxy's (65534, AIRLOCK_PROXY_UID)"
finish
