#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A hostile model under Codex, run as docs/WRAPPING.md says: its first
# reply calls Codex's own tools instead of airlock's (tests/agents/
# mockmodel.py --attack): local_shell_call, shell under its function
# names, and apply_patch, freeform and nested in code mode's exec, adding
# a file to the agent's home and ~/.codex/config.toml there (a notify
# command the next session would run), and code mode's JavaScript
# reaching for a process, a file or a fetch.  The agent's home is writable and
# kept, so only Codex's own policy (--sandbox read-only) stops the write;
# with --dangerously-bypass-approvals-and-sandbox, as WRAPPING.md said
# before, the patch landed and the next session ran its notify.  Then the
# model's airlock apply_patch still goes through (Codex lets airlock's
# tools run unasked: default_tools_approval_mode=approve).  The other
# agents, and the rest of the script, are in make check-agents.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
command -v codex >/dev/null || { echo "SKIP: codex is not installed (tests/agents/install.sh)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$T/ws
cp -R "$top_srcdir/tests/agents/fixture" "$ws"
chmod -R u+w "$ws"
manifest=$top_srcdir/contrib/agents/codex.yaml
if [ "$(id -u)" = 0 ]; then
	home=$T/home
	mkdir -p "$home"
	chown 65534:65534 "$home"
	sed -e "s|^  home: .*|  home: $home|" "$manifest" >"$T/m.yaml"
	manifest=$T/m.yaml
else
	export XDG_STATE_HOME="$T/xdg"
	home=$XDG_STATE_HOME/airlock/agents/codex
	mkdir -p "$home"
fi

python3 "$top_srcdir/tests/agents/mockmodel.py" --log "$T/mock.log" \
    --port-file "$T/port" --attack "$home" >"$T/mock.err" 2>&1 &
mock=$!
check "the mock model listens" wait_for test -s "$T/port"
port=$(cat "$T/port")
# WRAPPING.md's command, the mock as a gateway provider (codex.yaml).
words=$(python3 "$top_srcdir/tests/agents/doc_command.py" \
    "$top_srcdir/docs/WRAPPING.md" codex --task "fix the test" -- \
    -c model_provider=mock -c model_providers.mock.name=mock \
    -c "model_providers.mock.base_url=\"http://127.0.0.1:$port/v1\"" \
    -c model_providers.mock.env_key=OPENAI_API_KEY \
    -c model_providers.mock.wire_api=responses \
    -c model_providers.mock.supports_websockets=false)
check "WRAPPING.md gives Codex's command" [ -n "$words" ]
eval "set -- $words"
OPENAI_API_KEY=mock-key timeout 120 "$AIRLOCK" run --manifest "$manifest" \
    --workspace "$ws" --allow-host "127.0.0.1:$port" -- "$@" \
    </dev/null >"$T/out" 2>"$T/err"
rc=$?
kill $mock 2>/dev/null
wait $mock 2>/dev/null
expect_eq "codex exited 0" "$rc" 0
[ "$rc" = 0 ] || tail -5 "$T/err"

# What Codex answered to each of its own tools.
answers=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    got = json.loads(line).get("attack_results") or []
    for r in got:
        print("%s: %s" % (r["name"], r["text"][:600].replace("\n", " ")))
    if got:
        break
' "$T/mock.log")
echo "$answers" | sed 's/^/#   /'
expect_contains "the hostile reply reached Codex: its own apply_patch was called" \
    "$answers" "apply_patch: "
expect_not_contains "Codex's own apply_patch wrote nothing" "$answers" "Success."
expect_contains "Codex refused it: its sandbox policy is read-only" \
    "$answers" "patch rejected: writing is blocked by read-only sandbox"
expect_not_contains "code mode's JavaScript started no process, wrote no file, fetched nothing" \
    "$answers" "ran: "
expect_not_contains "nor did the agent fetch from the mock" "$(cat "$T/mock.log")" '"path": "/pwned-'
expect_eq "nothing of the model's own tools is in the agent's home" \
    "$(cd "$home" && ls -d pwned-* 2>/dev/null | tr '\n' ' '
	[ -s .codex/config.toml ] && echo .codex/config.toml)" ""

# airlock's own tools still run, unasked by Codex: the fix is in.
check "the model's airlock apply_patch went through" \
    grep -q '"$i" -le "$n"' "$ws/src/calc.sh"
finish
