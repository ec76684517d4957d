#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The demo session: a scripted agent (no model) works on a scratch copy of
# contrib/example-project under "airlock run" with the built-in manifest.
set -eu
# The same layout in the source tree (contrib/demo, contrib/example-project)
# and installed ($(pkgdatadir)/demo, $(pkgdatadir)/example-project): the
# built ./airlock when run from the source tree, else the one on PATH.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ -z "${AIRLOCK:-}" ] && [ -f "$top/airlock" ] && [ -x "$top/airlock" ]; then
	AIRLOCK=$top/airlock
fi
airlock=${AIRLOCK:-airlock}
ws=$(mktemp -d /tmp/airlock-demo.XXXXXX)
cp -a "$here/../example-project/." "$ws/"
chmod -R u+w "$ws"
echo "demo: workspace $ws (a scratch copy of contrib/example-project)"
echo "demo: airlock run --workspace $ws -- $here/agent.sh"
set +e
"$airlock" run --workspace "$ws" -- "$here/agent.sh" 2>"$ws.log"
status=$?
set -e
sed -n 's/^agent: /  /p' "$ws.log"
session=$(sed -n 's/^airlock: session \([^ ]*\) ended.*/\1/p' "$ws.log")
log=$(sed -n 's/.*audit log \(.*\)$/\1/p' "$ws.log")
echo "demo: the agent exited with status $status"
echo "demo: trace (airlock trace $session):"
"$airlock" trace "$session" | sed 's/^/  /'
echo "demo: audit log $log"
"$airlock" audit verify "$log" | sed 's/^/  /'
rm -f "$ws.log"
