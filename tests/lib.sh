# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shared helpers for the integration tests (sourced by tests/integration/*.sh
# and tests/escape/*.sh).  Each test prints "ok - NAME" / "not ok - NAME"
# lines and exits non-zero if any check failed.
set -u
: "${AIRLOCK:=$top_builddir/airlock}"
TESTS_FAILED=0
TESTS_RUN=0

TESTS_FINISHED=0
T=$(mktemp -d /tmp/airlock-test.XXXXXX)
# The sessions, audit logs and keys of a test's airlock runs live in its
# scratch directory, not in the machine's state directory (as root
# /var/lib/airlock), unless the test says otherwise.
: "${AIRLOCK_HOME=$T/state}"
export AIRLOCK_HOME
# What airlock shows a person is folded to the terminal's width
# (common/vis.h vis_fold()): the tests read whole lines, as on a wide
# terminal, unless they set COLUMNS themselves.
export COLUMNS=1000
# A script that stops before finish() (a typo, a cut heredoc, set -e)
# fails, unless it exits 77: a skip, with a message naming what is absent.
# What a test adds with at_exit runs first.  A test sets no EXIT trap of
# its own: it would replace this one (and $T would stay, its processes
# run on, a script ended early pass).  $T is removed without crossing
# into another file system mounted under it that an at_exit did not
# unmount (a cgroup2 hierarchy, a loop device's): that one stays, with
# the directories above it.  (A bind of a directory of the same file
# system is not told apart: unmount it.)
trap 'rc=$?; trap "" HUP INT TERM; set +u; run_at_exit; end_writers_in_T; rm -rf --one-file-system "$T"; if [ "$TESTS_FINISHED" != 1 ] && [ "$rc" != 77 ]; then echo "not ok - the test script ended before finish"; exit 1; fi' EXIT
# A kill (timeout(1)'s TERM, a person's ^C, a closed terminal) ends the
# script through that trap too.  Untrapped, bash runs it for a signal
# only where it waits in "wait", dash (tools/mutants/run.py runs the
# scripts with sh) never: one that came while a command ran in the
# foreground killed the script and left $T, the test's servers and its
# mounts behind.  The clean-up itself is not cut short by a
# second one (timeout(1) signals the script, then its process group).
# (A subshell or a command the script starts has the signals' defaults
# again.)
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# at_exit CMD: the shell text CMD runs (eval) when the script exits, for
# whatever reason (finish, a failure with AIRLOCK_TEST_FAIL_FAST, a
# typo, a TERM, INT or HUP), in the script's shell, before the
# processes with files under $T are ended and $T is removed: a test's
# server, a mount, a directory outside $T, a process that holds none of
# $T's files.  The last added runs first (what was made later is undone
# first: the processes in a cgroup before the cgroup); each runs once,
# whether or not the one before it succeeded (and with set +u: a
# variable the script had not set yet is empty).  Quote CMD so that its
# variables expand at exit ('kill $PID'), not when it is added.  CMD
# does not exit: what follows it would not run.
AT_EXIT_N=0
at_exit() {
	AT_EXIT_N=$((AT_EXIT_N + 1))
	eval "AT_EXIT_$AT_EXIT_N=\$1"
}
run_at_exit() {
	local _ae
	while [ "$AT_EXIT_N" -gt 0 ]; do
		eval "_ae=\$AT_EXIT_$AT_EXIT_N"
		AT_EXIT_N=$((AT_EXIT_N - 1))
		eval "$_ae"
	done
}

# The processes, other than this shell, with a file or their working
# directory under $T.  The audit writer of a test's last "airlock exec"
# outlives it: once that log is closed it makes the next session ahead
# under $AIRLOCK_HOME/spare (supervisor/exec_spare.h) and waits there
# for 30 s; rm -rf "$T" raced its files ("rm: cannot remove
# .../state: Directory not empty") and left it waiting in a removed
# directory.  They are the test's own: each is ended, by pid, and gone
# before $T is removed.  end_writers_in_T leaves $T first (cd /), or
# its own subshells would be among them.
writers_in_T() {
	find /proc/[0-9]*/fd /proc/[0-9]*/cwd -maxdepth 1 \( -lname "$T" -o \
	    -lname "$T/*" \) \
	    2>/dev/null | sed -n 's|^/proc/\([0-9]*\)/.*|\1|p' | sort -u |
	    grep -vx "$$"
}
end_writers_in_T() {
	local pids n=0
	# Only a scratch directory of ours: with T empty, "$T/*" would be
	# every process's files.
	case $T in /tmp/airlock-test.?*) ;; *) return ;; esac
	[ -d "$T" ] || return
	cd / || return
	while pids=$(writers_in_T) && [ -n "$pids" ] && [ $n -lt 50 ]; do
		kill -KILL $pids 2>/dev/null
		sleep 0.05
		n=$((n + 1))
	done
}

pass() { TESTS_RUN=$((TESTS_RUN + 1)); echo "ok - $*"; }
fail() { note_failure "$@"; stop_at_failure; }
note_failure() { TESTS_RUN=$((TESTS_RUN + 1)); TESTS_FAILED=$((TESTS_FAILED + 1)); echo "not ok - $*"; }
# AIRLOCK_TEST_FAIL_FAST=1 (make mutants): the first failure ends the
# script (through its EXIT trap, which cleans up), since one failure is
# the verdict; about half of the mutants' time went to the checks after
# it.  Inside a subshell it ends only the subshell, as a failure there
# always went unrecorded.
stop_at_failure() {
	[ "${AIRLOCK_TEST_FAIL_FAST:-}" = 1 ] || return 0
	echo "# AIRLOCK_TEST_FAIL_FAST: stopping at the first failure"
	exit 1
}

# check NAME COMMAND...: passes if COMMAND succeeds.
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

# expect_contains NAME HAYSTACK NEEDLE
expect_contains() {
	case "$2" in
	*"$3"*) pass "$1" ;;
	*) note_failure "$1"; printf '  expected to contain: %s\n  got: %s\n' "$3" "$2" | head -c 4000; stop_at_failure ;;
	esac
}
expect_not_contains() {
	case "$2" in
	*"$3"*) note_failure "$1"; printf '  must not contain: %s\n  got: %s\n' "$3" "$2" | head -c 4000; stop_at_failure ;;
	*) pass "$1" ;;
	esac
}
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else note_failure "$1"; printf '  expected: %s\n  got: %s\n' "$3" "$2"; stop_at_failure; fi
}

# A scratch workspace: a copy of contrib/example-project.
make_workspace() {
	ws="$T/ws"
	rm -rf "$ws"
	cp -a "$top_srcdir/contrib/example-project" "$ws"
	# A distcheck's source tree is read-only: the copy must not be.
	chmod -R u+w "$ws"
	echo "$ws"
}

# tls_front NAMES...: for a test in a network and mount namespace of its
# own, lo up, NAMES at 127.0.0.1 in a bind-mounted /etc/hosts, and a
# P-256 certificate for front.test in $T/cert.pem and $T/key.pem, by
# which a local server stands in for a shared TLS front end (with
# tls_front_module's helpers); python3 and openssl must be there.
# Prints "not ok" and exits when it cannot.
tls_front() {
	for c in python3 openssl; do
		command -v $c >/dev/null || { echo "not ok - $c is missing"; exit 1; }
	done
	"$top_builddir/tests/proxy_helper" lo-up || { echo "not ok - cannot bring up lo"; exit 1; }
	printf '127.0.0.1\tlocalhost %s\n' "$*" > "$T/hosts"
	chmod 644 "$T/hosts"
	mount --bind "$T/hosts" /etc/hosts || { echo "not ok - cannot mount hosts"; exit 1; }
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/key.pem" -out "$T/cert.pem" -subj /CN=front.test -days 2 \
	    >/dev/null 2>&1 || { echo "not ok - cannot make a certificate"; exit 1; }
	tls_front_module
}

# tls_front_module: $T/front.py, what the test's server ($T/srv.py, run
# by tls_front_serve) may import:
#   t                        $T
#   log_name(ssl, name, ctx) an SNI callback: appends NAME and a line
#                            break to $T/names.log
#   server_context()         a TLS server context with the certificate
#   serve_forever(serve)     listens on 127.0.0.1 (its port written to
#                            $T/srv.port) and runs serve(s, n) for the
#                            n-th connection s (from 1), in a thread
tls_front_module() {
	cat > "$T/front.py" <<'EOF'
import socket, ssl, sys, threading
t = sys.argv[1]
lock = threading.Lock()
def log_name(obj, name, c):
    with lock, open(t + '/names.log', 'a') as o:
        o.write('%s\n' % name)
def server_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(t + '/cert.pem', t + '/key.pem')
    return ctx
def serve_forever(serve):
    ls = socket.socket()
    ls.bind(('127.0.0.1', 0))
    ls.listen(64)
    with open(t + '/srv.port', 'w') as f:
        f.write('%d\n' % ls.getsockname()[1])
    n = 0
    while True:
        s, _ = ls.accept()
        n += 1
        threading.Thread(target=serve, args=(s, n), daemon=True).start()
EOF
}

# tls_front_serve: runs python3 $T/srv.py $T in the background, ended
# with the test, and waits until it wrote its port(s) to $T/srv.port.
tls_front_serve() {
	python3 "$T/srv.py" "$T" &
	SRVPID=$!
	at_exit 'kill "$SRVPID" 2>/dev/null'
	i=0; while [ ! -s "$T/srv.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# tls_front_client: the directory A=$T/atk for a sandboxed client of
# the TLS front (its attack.py the test writes), with proxied.py, what
# such clients share (import it: its directory is on sys.path):
#   tunnel(port, early=b'', timeout=5)
#                            a socket through a CONNECT tunnel (the
#                            sandbox's HTTPS_PROXY) to front.test:port,
#                            the proxy's answer read;
#                            with EARLY, bytes sent behind the CONNECT
#                            head, and the answer left unread
#   client_context()         a TLS client context that checks no
#                            certificate
#   attack(name, fn)         prints "NAME | what fn returned", or
#                            "NAME | error" when it raised OSError (and
#                            the error on stderr)
tls_front_client() {
	A="$T/atk"
	mkdir "$A"
	cat > "$A/proxied.py" <<'EOF'
import os, socket, ssl, sys
def tunnel(port, early=b'', timeout=5):
    proxy = os.environ['HTTPS_PROXY'].rsplit(':', 1)
    proxy = (proxy[0].split('//')[-1], int(proxy[1]))
    s = socket.create_connection(proxy, timeout=timeout)
    s.sendall(b'CONNECT front.test:%d HTTP/1.1\r\n\r\n' % port + early)
    if not early:
        r = b''
        while not r.endswith(b'\r\n\r\n'):
            c = s.recv(1)
            if not c:
                raise OSError('no answer')
            r += c
    return s
def client_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx
def attack(name, fn):
    try:
        r = fn()
    except OSError as e:
        print('%s: %s' % (name, e), file=sys.stderr, flush=True)
        r = 'error'
    print('%s | %s' % (name, r), flush=True)
EOF
}

# tls_front_attack PORT...: runs python3 $A/attack.py PORT... in a
# sandbox (workspace $ws, $A read-only) granted front.test and 127.0.0.1
# at each PORT, what it printed (stdout and stderr) in $out.
tls_front_attack() {
	local p hosts=
	for p; do
		hosts="$hosts --allow-host front.test:$p --allow-host 127.0.0.1:$p"
	done
	# shellcheck disable=SC2086 # $hosts: one word an option
	out=$("$AIRLOCK" exec --workspace "$ws" --ro "$A" $hosts \
	    -- python3 "$A/attack.py" "$@" 2>&1)
}

# attack_line NAME: the line of $out "NAME | ..." (tls_front_client).
attack_line() { printf '%s\n' "$out" | grep "^$1 |"; }

# as_uid OWNER CMD...: CMD as root (OWNER 0), or as uid OWNER with
# its own state under $T/stOWNER (no AIRLOCK_HOME: airlock's defaults).
as_uid() {
	_au=$1
	shift
	if [ "$_au" = 0 ]; then
		"$@"
	else
		setpriv --reuid="$_au" --regid="$_au" --clear-groups \
		    env -u AIRLOCK_HOME HOME="$T/st$_au" \
		    XDG_STATE_HOME="$T/st$_au" XDG_RUNTIME_DIR="$T/st$_au" "$@"
	fi
}

# wait_for COND...: polls COND every 50 ms for at most 20 s.
wait_for() {
	_wf=0
	while [ "$_wf" -lt 400 ]; do
		"$@" && return 0
		sleep 0.05
		_wf=$((_wf + 1))
	done
	return 1
}

# origin_start [--on IP] LIFETIME_S [LOG]: the test origin server
# (tests/proxy_helper serve, or serve-on IP: every address of this netns
# for "::"), in the background, for at most LIFETIME_S seconds, with LOG
# the file it appends every byte it received to.  Waits for it to listen
# and sets SP, its port, and SRVPID, the leader of its process group
# (the server and a child per connection), which is sent TERM at exit.
origin_start() {
	local on=
	if [ "$1" = --on ]; then
		on=$2
		shift 2
	fi
	rm -f "$T/srv"
	if [ -n "$on" ]; then
		"$top_builddir/tests/proxy_helper" serve-on "$on" "$T/srv" "$@" &
	else
		"$top_builddir/tests/proxy_helper" serve "$T/srv" "$@" &
	fi
	wait_for test -s "$T/srv"
	read -r SP SRVPID <"$T/srv"
	at_exit 'kill -TERM "-$SRVPID" 2>/dev/null'
}

# exec_proxy_pid PID: the egress proxy of the "airlock exec" that is the
# child of PID (a timeout(1) wrapping it): the exec's child that runs the
# same program and has the proxy's resolver keeper for a child (and the
# resolvers for grandchildren).  Fails while there is none.
exec_proxy_pid() {
	_ep=$(pgrep -P "$1" | head -n 1)
	[ -n "$_ep" ] || return 1
	for _c in $(pgrep -P "$_ep"); do
		[ "$(cat "/proc/$_c/comm" 2>/dev/null)" = airlock-init ] && continue
		if [ "$(pgrep -P "$_c" | wc -l)" -ge 1 ]; then
			echo "$_c"
			return 0
		fi
	done
	return 1
}

# newest_session_log [STATE]: the audit log of the newest session under
# STATE (default $AIRLOCK_HOME), by its session_start's time, in ms (a
# file's or directory's mtime may tie with the last session's).
newest_session_log() {
	for _nl in "${1:-$AIRLOCK_HOME}"/sessions/*/audit.jsonl; do
		printf '%s %s\n' "$(head -n 1 "$_nl" | jq -r .time)" "$_nl"
	done | sort | tail -n 1 | cut -d' ' -f2-
}

# audit_doc_fields AUDIT.md: the event table of docs/AUDIT.md
# (| `event` | when | fields |, field names in backticks outside
# parentheses, "a/b" for events sharing a row) as sorted "EVENT FIELD OPT"
# lines, OPT 1 where the name is followed by "?" (may be absent).
audit_doc_fields() {
	awk -F'|' '/^## Events/ { on = 1 } /^## / && !/^## Events/ { on = 0 }
	    on && /^\| `[a-z_]+`/ {
		ev = $2; f = $4
		while (gsub(/\([^()]*\)/, "", f)) ;
		gsub(/[` ]/, "", ev)
		n = split(ev, evs, "/")
		while (match(f, /`[A-Za-z_]+`\??/)) {
			name = substr(f, RSTART + 1, RLENGTH - 2)
			opt = substr(f, RSTART + RLENGTH - 1, 1) == "?"
			if (opt) name = substr(name, 1, length(name) - 1)
			else sub(/`$/, "", name)
			for (i = 1; i <= n; i++) print evs[i], name, opt
			f = substr(f, RSTART + RLENGTH)
		}
	    }' "$1" | sed 's/`//g' | sort -u
}

# The demo (contrib/demo/run.sh) leaves its scratch workspace for a
# newcomer to look at; a test removes it, named in the demo's output $1.
demo_cleanup() {
	demo_ws=$(printf '%s\n' "$1" | sed -n 's|^demo: workspace \(/tmp/airlock-demo\.[^ ]*\) .*|\1|p')
	case $demo_ws in /tmp/airlock-demo.?*) rm -rf "$demo_ws" ;; esac
}

finish() {
	TESTS_FINISHED=1
	echo "# $TESTS_RUN checks, $TESTS_FAILED failed"
	[ "$TESTS_FAILED" -eq 0 ]
}

# spare_pid: the pid of airlock exec's spare audit writer under $ST (its
# state directory): the process holding its prepared log open.
spare_pid() {
	local p
	for p in /proc/[0-9]*; do
		if ls -l "$p/fd" 2>/dev/null | grep -q "$ST/spare/.*/spare.jsonl"; then
			echo "${p#/proc/}"
			return 0
		fi
	done
	return 1
}
