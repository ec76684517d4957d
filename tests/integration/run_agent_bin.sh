#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock run: the agent command as typed on the host.  A command found on
# PATH as a symlink into an npm package, run by an interpreter that lives
# next to it ("#!/usr/bin/env fakeinterp"), runs inside with its whole
# node_modules (a sibling platform package too), its interpreter and its
# own directory first on PATH; "-v" says what was bound and why.
. "$top_srcdir/tests/lib.sh"
export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
ws=$(make_workspace)

P="$T/prefix"
mkdir -p "$P/bin" "$P/lib/node_modules/fake-agent" \
    "$P/lib/node_modules/fake-agent-linux-x64"
echo '{"name": "fake-agent"}' >"$P/lib/node_modules/fake-agent/package.json"
echo native-ok >"$P/lib/node_modules/fake-agent-linux-x64/native.txt"
cat >"$P/lib/node_modules/fake-agent/cli.sh" <<'AGENT'
#!/usr/bin/env fakeinterp
echo "argv0=$0"
echo "PATH=$PATH"
cat "$(dirname "$0")/../lib/node_modules/fake-agent-linux-x64/native.txt"
command -v fakeinterp
exit 0
AGENT
chmod 755 "$P/lib/node_modules/fake-agent/cli.sh"
cp "$(readlink -f /bin/sh)" "$P/bin/fakeinterp"
ln -s ../lib/node_modules/fake-agent/cli.sh "$P/bin/fake-agent"

out=$(PATH="$P/bin:$PATH" timeout 60 "$AIRLOCK" run -v --workspace "$ws" \
    -- fake-agent 2>&1)
expect_eq "the npm-style agent runs by name" "$?" 0
expect_contains "it runs by the path found on PATH" "$out" "argv0=$P/bin/fake-agent"
expect_contains "its sibling platform package is visible" "$out" "native-ok"
expect_contains "its directory comes first on PATH inside" "$out" "PATH=$P/bin:"
expect_contains "its interpreter is found inside" "$out" "$P/bin/fakeinterp"
expect_contains "-v names the node_modules bind and why" "$out" \
    "bind ro $P/lib/node_modules (npm package of $P/bin/fake-agent)"
expect_contains "-v names the interpreter bind" "$out" \
    "bind ro $P/bin/fakeinterp (interpreter of $P/bin/fake-agent)"

# An interpreter that is nowhere on PATH: a clear usage error.
rm "$P/bin/fakeinterp"
out=$(PATH="$P/bin:$PATH" timeout 60 "$AIRLOCK" run --workspace "$ws" \
    -- fake-agent 2>&1)
expect_eq "an agent whose interpreter is missing is a usage error" "$?" 64
expect_contains "the error names the interpreter" "$out" \
    "interpreter fakeinterp not found in PATH"
finish
