#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Per-run overrides of the policy for "airlock run" and "airlock exec":
# --env NAME[=VALUE], --ro PATH, --rw PATH (and --allow-host, whose
# traffic is tested in egress_wired.sh).  Each takes effect inside the
# sandbox, a bad one is a usage error naming its flag, and "run" records
# them in the session's first audit record, never with --env values.
. "$top_srcdir/tests/lib.sh"
export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$(make_workspace)
mkdir -p "$T/ro" "$T/rw"
echo ro-content >"$T/ro/f"
# The sandbox's user writes there (nobody when airlock runs as root).
chmod 777 "$T/rw"

probe='echo "FOO=$FOO BAZ=$BAZ"; cat '"$T"'/ro/f
echo x >'"$T"'/ro/g 2>/dev/null && echo RO-WRITABLE
echo data >'"$T"'/rw/out && echo rw-written'

for cmd in run exec; do
	out=$(FOO=from-caller timeout 60 "$AIRLOCK" $cmd --workspace "$ws" \
	    --env FOO --env BAZ=given --ro "$T/ro" --rw "$T/rw" \
	    -- sh -c "$probe" 2>&1)
	expect_eq "$cmd: the command runs with overrides" "$?" 0
	expect_contains "$cmd --env NAME passes the caller's value" "$out" "FOO=from-caller"
	expect_contains "$cmd --env NAME=VALUE sets it" "$out" "BAZ=given"
	expect_contains "$cmd --ro makes a host path visible" "$out" "ro-content"
	expect_not_contains "$cmd --ro is read-only" "$out" "RO-WRITABLE"
	expect_contains "$cmd --rw is writable inside" "$out" "rw-written"
	expect_eq "$cmd --rw writes land on the host" "$(cat "$T/rw/out" 2>/dev/null)" "data"
	rm -f "$T/rw/out"

	# Without the overrides, none of it is there.
	out=$(FOO=from-caller timeout 60 "$AIRLOCK" $cmd --workspace "$ws" \
	    -- sh -c "$probe" 2>&1)
	expect_not_contains "$cmd: no --env, no FOO" "$out" "FOO=from-caller"
	expect_not_contains "$cmd: no --ro, no host path" "$out" "ro-content"

	# Bad overrides: usage errors that name the flag.
	bad() {
		name=$1 want=$2; shift 2
		out=$(timeout 60 "$AIRLOCK" $cmd --workspace "$ws" "$@" -- true 2>&1)
		expect_eq "$cmd $name: exit 64" "$?" 64
		expect_contains "$cmd $name: says why" "$out" "$want"
	}
	bad "--rw /" "--rw /: refusing to bind the whole file system" --rw /
	bad "--rw /proc" "--rw /proc: refusing to bind /proc" --rw /proc
	bad "--rw /sys/kernel" "refusing to bind /sys" --rw /sys/kernel
	bad "--ro /dev" "--ro /dev: refusing to bind /dev" --ro /dev
	bad "--rw of the state directory" "refusing to expose airlock's state directory" \
	    --rw "$AIRLOCK_HOME"
	bad "--rw of a parent of the state directory" "refusing to expose airlock's state directory" \
	    --rw "$T"
	bad "--rw over the workspace" "refusing a read-write bind over the workspace" \
	    --rw "$ws/src"
	bad "--rw of a missing path" "--rw $T/nope: No such file or directory" --rw "$T/nope"
	bad "--env of an unset name" "--env UNSET_XYZ: not set in the environment" --env UNSET_XYZ
	bad "--env of a bad name" "--env A-B: not an environment variable name" --env A-B
	bad "--env AIRLOCK_*" "--env AIRLOCK_FD: set by airlock itself" --env AIRLOCK_FD=9
	bad "--env HTTPS_PROXY" "--env https_proxy: set by airlock itself" --env https_proxy=x
	# An IP literal with a trailing dot passed this check and then made
	# an IP rule the proxy refused: the run failed with 71 instead.
	bad "--allow-host 1.1.1.1.:443" \
	    "--allow-host 1.1.1.1.:443: 1.1.1.1.:443: an IP address with a trailing dot (write 1.1.1.1)" \
	    --allow-host 1.1.1.1.:443
	bad "--allow-host 1.1.1.1." \
	    "--allow-host 1.1.1.1.: 1.1.1.1.:443: an IP address with a trailing dot (write 1.1.1.1)" \
	    --allow-host 1.1.1.1.
done
mkdir -p "$AIRLOCK_HOME"
out=$(timeout 60 "$AIRLOCK" run --workspace "$ws" --allow-host 'bad host' -- true 2>&1)
expect_eq "run --allow-host with a bad host: exit 64" "$?" 64
expect_contains "run --allow-host names the flag" "$out" "--allow-host bad host:"

# The session's first record holds the overrides; --env values never.
rm -rf "$AIRLOCK_HOME/sessions"
SECRET=s3cr3t-value timeout 60 "$AIRLOCK" run --workspace "$ws" --env SECRET \
    --env PLAIN=also-secret --ro "$T/ro" --rw "$T/rw" \
    --allow-host api.example.com --allow-host 127.0.0.1:8080 -- true 2>/dev/null
rec=$(grep -h '"session_config"' "$AIRLOCK_HOME"/sessions/*/audit.jsonl)
ov=$(printf '%s\n' "$rec" | jq -c '.fields.overrides // .overrides')
expect_eq "the audit record holds the overrides" "$ov" \
    "{\"allowHosts\":[\"api.example.com:443\",\"127.0.0.1:8080\"],\"env\":[{\"name\":\"SECRET\",\"source\":\"caller\"},{\"name\":\"PLAIN\",\"source\":\"commandLine\"}],\"readOnly\":[\"$T/ro\"],\"readWrite\":[\"$T/rw\"]}"
expect_not_contains "--env values stay out of the audit log" "$rec" "s3cr3t"
expect_not_contains "--env NAME=VALUE values stay out too" "$rec" "also-secret"

# The agent's environment holds each name once, whatever agent.env names:
# the shipped profiles pass TERM and LANG, which airlock passes anyway, and
# the agent got both twice, its --env value first, the caller's last,
# which node and dash read (airlock-run(1): "then the --env overrides").
# Nor does a pass-through of HOME, PATH, AIRLOCK_FD or a proxy variable
# shadow airlock's own.
{ cat "$top_srcdir/contrib/manifests/default.yaml"
  printf 'agent:\n  network: ["api.example.com:443"]\n'
  printf '  env: [TERM, LANG, HOME, PATH, AIRLOCK_FD, HTTPS_PROXY, https_proxy]\n'
} >"$T/env.yaml"
TERM=t-caller LANG=l-caller HOME=/caller-home HTTPS_PROXY=http://10.9.9.9:1 \
    https_proxy=http://10.9.9.9:1 AIRLOCK_FD=7 timeout 60 "$AIRLOCK" run \
    --manifest "$T/env.yaml" --workspace "$ws" --env LANG=l-flag -- env \
    >"$T/env.out" 2>"$T/env.err"
expect_eq "run: the agent ran env" "$?" 0
expect_eq "run: no name twice in the agent's environment" \
    "$(cut -d= -f1 "$T/env.out" | sort | uniq -d | tr '\n' ' ')" ""
expect_eq "run: --env LANG=VALUE is the agent's LANG" \
    "$(sed -n 's/^LANG=//p' "$T/env.out" | tr '\n' ' ')" "l-flag "
expect_eq "run: TERM passed once" \
    "$(sed -n 's/^TERM=//p' "$T/env.out" | tr '\n' ' ')" "t-caller "
expect_not_contains "run: agent.env HOME does not replace the agent's home" \
    "$(grep '^HOME=' "$T/env.out")" /caller-home
expect_eq "run: agent.env AIRLOCK_FD does not replace airlock's" \
    "$(sed -n 's/^AIRLOCK_FD=//p' "$T/env.out" | tr '\n' ' ')" "3 "
expect_eq "run: agent.env HTTPS_PROXY does not replace airlock's proxy" \
    "$(grep -c '^HTTPS_PROXY=http://127\.0\.0\.1:[0-9]*$' "$T/env.out")" 1
finish
