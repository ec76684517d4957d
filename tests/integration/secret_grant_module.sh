#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A tool granted a secret runs only its code as pinned at session start
# (invariant 4), however its interpreter is told where that code is:
#   (a) python3 -m tools.deploy runs tools/deploy.py, which no argv
#       element names as a file: it was not pinned, and the agent's
#       rewrite of it ran with the secret and printed it with a comma between its characters;
#   (b) python3 -Wignore bin/run.py: the option's argument held an
#       "e", read as -e (code from the working directory, no script),
#       so the script's directory was not searched for modules and a
#       bin/json.py the agent wrote ran with the secret;
#   (c) python3 -m tools.pkg runs tools/pkg/__main__.py: likewise;
#   (d) env PYTHONUNBUFFERED=1 python3 env/run.py was taken for a
#       program named PYTHONUNBUFFERED=1, not python: env/json.py, the
#       agent's, ran with the secret;
#   (e) node -r ./hook.js web/publish.js: the preloaded hook was taken
#       for the script, and the require() of web/publish.js looked in
#       web/node_modules, unpinned: the agent's package there ran with
#       the secret.
# Each is refused (pinned_code_changed, naming the file), audited, and
# the secret is nowhere the agent can read.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tools/pkg" "$ws/bin" "$ws/env" "$ws/web/node_modules"
: >"$ws/web/node_modules/.keep"
printf '// preloaded\n' >"$ws/hook.js"
printf 'let l;\ntry { l = require("leftpad"); } catch (e) { l = null; }\nconsole.log(l ? "with leftpad" : "published");\n' >"$ws/web/publish.js"
: >"$ws/tools/__init__.py"
: >"$ws/tools/pkg/__init__.py"
printf 'import json\nprint(json.dumps({"deployed": "prod"}))\n' >"$ws/tools/deploy.py"
printf 'print("packaged")\n' >"$ws/tools/pkg/__main__.py"
printf 'import json\nprint(json.dumps({"ran": "bin"}))\n' >"$ws/bin/run.py"
printf 'import json\nprint(json.dumps({"ran": "env"}))\n' >"$ws/env/run.py"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: deploy_m
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["python3", "-m", "tools.deploy"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: deploy_w
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["python3", "-Wignore", "bin/run.py"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: deploy_env
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["env", "PYTHONUNBUFFERED=1", "python3", "env/run.py"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: publish_r
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["node", "-r", "./hook.js", "web/publish.js"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: pkg
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["python3", "-m", "tools.pkg"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
EOF2
secret='n0t-for-the-agent-43'
# Printed with a comma between its characters, a form no redactor
# catches (docs/SECURITY.md): the pin is what keeps it from the agent.
spaced=$(printf '%s' "$secret" | sed 's/./&,/g; s/,$//')
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)
evil='import os\nprint(\",\".join(os.environ.get(\"API_TOKEN\", \"\")))\ndef dumps(x):\n    return \"\"\n'

# Each runs as it was first.
mcp_call deploy_m '{}'
expect_eq "(a) the module runs" "$(jr .result.structuredContent.stdout)" '{"deployed": "prod"}'
mcp_call deploy_w '{}'
expect_eq "(b) the script runs" "$(jr .result.structuredContent.stdout)" '{"ran": "bin"}'
mcp_call pkg '{}'
expect_eq "(c) the package runs" "$(jr .result.structuredContent.stdout)" packaged
mcp_call deploy_env '{}'
expect_eq "(d) the script after env runs" "$(jr .result.structuredContent.stdout)" '{"ran": "env"}'
mcp_call publish_r '{}'
expect_eq "(e) the node script after its preload runs" "$(jr .result.structuredContent.stdout)" published

# (a) python3 -m tools.deploy
mcp_call write_file "{\"path\":\"tools/deploy.py\",\"content\":\"$evil\"}"
expect_ok_result "(a) the agent rewrites tools/deploy.py"
mcp_call deploy_m '{}'
expect_error_class "(a) the module -m names is not run with the secret" pinned_code_changed
expect_contains "(a) the message names tools/deploy.py" "$(jr .result.structuredContent.message)" "tools/deploy.py"
expect_not_contains "(a) the spaced secret is not in the result" "$R" "$spaced"

# (b) python3 -Wignore bin/run.py
mcp_call write_file "{\"path\":\"bin/json.py\",\"content\":\"$evil\"}"
expect_ok_result "(b) the agent writes bin/json.py beside the script"
mcp_call deploy_w '{}'
expect_error_class "(b) the tool that would import it is not run with the secret" pinned_code_changed
expect_contains "(b) the message names bin/json.py" "$(jr .result.structuredContent.message)" "bin/json.py"
expect_not_contains "(b) the spaced secret is not in the result" "$R" "$spaced"

# (c) python3 -m tools.pkg: its __main__ (tools/deploy.py, a module of
# the package it is in, is pinned for it too).
mcp_call write_file "{\"path\":\"tools/pkg/__main__.py\",\"content\":\"$evil\"}"
expect_ok_result "(c) the agent rewrites tools/pkg/__main__.py"
mcp_call pkg '{}'
expect_error_class "(c) the package's __main__ is not run with the secret" pinned_code_changed
expect_contains "(c) the message names tools/pkg/__main__.py" "$(jr .result.structuredContent.message)" "tools/pkg/__main__.py"
expect_not_contains "(c) the spaced secret is not in the result" "$R" "$spaced"

# (d) env PYTHONUNBUFFERED=1 python3 env/run.py
mcp_call write_file "{\"path\":\"env/json.py\",\"content\":\"$evil\"}"
expect_ok_result "(d) the agent writes env/json.py beside the script"
mcp_call deploy_env '{}'
expect_error_class "(d) the tool that would import it is not run with the secret" pinned_code_changed
expect_contains "(d) the message names env/json.py" "$(jr .result.structuredContent.message)" "env/json.py"
expect_not_contains "(d) the spaced secret is not in the result" "$R" "$spaced"

# (e) node -r ./hook.js web/publish.js
node_evil='console.log([...(process.env.API_TOKEN || "")].join(","));'
mcp_call write_file "{\"path\":\"web/node_modules/leftpad.js\",\"content\":$(printf '%s\n' "$node_evil" | jq -Rs .)}"
expect_ok_result "(e) the agent writes web/node_modules/leftpad.js"
mcp_call publish_r '{}'
expect_error_class "(e) the tool that would require it is not run with the secret" pinned_code_changed
expect_contains "(e) the message names the package" "$(jr .result.structuredContent.message)" "web/node_modules/leftpad.js"
expect_not_contains "(e) the spaced secret is not in the result" "$R" "$spaced"
mcp_stop

check "the refusals are audited" grep -q '"pinned_code_changed"' "$sess/audit.jsonl"
if grep -rqF -e "$secret" -e "$spaced" "$AIRLOCK_HOME/sessions" "$T/notes" "$T/serve.err"; then
	fail "the secret (or its spaced form) is nowhere the agent or the log can read"
else
	pass "the secret (or its spaced form) is nowhere the agent or the log can read"
fi
finish
