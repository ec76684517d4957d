#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A secret is never handed to code the agent could have changed
# (invariant 4), whichever built-in action the granted tool has:
#   (a) an exec tool granted a secret runs the agent's own shell string:
#       it is refused and nothing runs;
#   (b) a run_check tool granted a secret runs the check's code: once the
#       agent rewrote the check's script to print the secret reversed
#       (which no redaction catches), the check refuses with
#       pinned_code_changed instead of running it;
#   (c) a command tool running a Python script imports a module from the
#       script's directory before the standard library: a tools/json.py
#       the agent wrote ran inside the tool that holds the secret and
#       printed it reversed.  The modules Python would find there are
#       pinned: the tool refuses, naming tools/json.py;
#   (d) likewise node's require() of a package from a node_modules the
#       agent wrote beside the script.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/tests"
printf '#!/bin/sh\necho "tests ok ${API_TOKEN:+with a token}"\n' >"$ws/tests/run.sh"
mkdir -p "$ws/tools"
printf 'def name():\n    return "prod"\n' >"$ws/tools/helper.py"
printf 'import json, helper\nprint(json.dumps({"deployed": helper.name()}))\n' >"$ws/tools/deploy.py"
printf 'let l;\ntry { l = require("leftpad"); } catch (e) { l = null; }\nconsole.log(l ? "with leftpad" : "published");\n' >"$ws/tools/publish.js"

cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: build
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    authorization: allow
    timeoutMs: 10000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: deploy
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["python3", "tools/deploy.py"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
  - name: publish
    input: {}
    output: { exitCode: integer, stdout: string }
    command: ["node", "tools/publish.js"]
    sideEffect: external
    authorization: allow
    timeoutMs: 10000
    secrets: [ { name: API_TOKEN, env: API_TOKEN } ]
checks:
  unit: ["sh", "tests/run.sh"]
EOF2
secret='n0t-for-the-agent-42'
reversed=$(printf '%s' "$secret" | rev)
printf '%s' "$secret" | "$AIRLOCK" secret set API_TOKEN
mcp_start "$T/m.yaml" "$ws"
sess=$(newest_session)

# (a) exec: the command is the agent's.
mcp_call shell '{"command":"printf %s \"$API_TOKEN\" | rev"}'
expect_error_class "an exec tool granted a secret is refused" denied
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"

# (b) run_check: the check's code as at session start runs with the secret.
mcp_call run_check '{"checkId":"unit"}'
expect_ok_result "the unchanged check runs"
expect_eq "granted its secret" "$(jr .result.structuredContent.stdout)" "tests ok with a token"
mcp_call write_file '{"path":"tests/run.sh","content":"#!/bin/sh\nprintf %s \"$API_TOKEN\" | rev\n"}'
expect_ok_result "the agent rewrites the check's script"
mcp_call run_check '{"checkId":"unit"}'
expect_error_class "the changed check is not run with the secret" pinned_code_changed
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"
expect_contains "the message names the changed file" "$R" "tests/run.sh"

# (c) python3 tools/deploy.py: sys.path[0] is tools/.
mcp_call deploy '{}'
expect_eq "the Python tool runs, importing its sibling module" "$(jr .result.structuredContent.stdout)" '{"deployed": "prod"}'
mcp_call deploy '{}'
expect_ok_result "its own run changed none of its pinned code"
# A bytecode cache forged for the pinned helper.py (its header carries
# the source's mtime and size, all Python checks) is not read: runners
# point PYTHONPYCACHEPREFIX away from the workspace.
cat >"$T/forge.py" <<'EOF2'
import os, py_compile, struct, sys
src = "tools/helper.py"
st = os.stat(src)
with open("/tmp/evil.py", "w") as f:
    f.write('import os\ndef name():\n    return os.environ.get("API_TOKEN", "")[::-1]\n')
cfile = "tools/__pycache__/helper.%s.pyc" % sys.implementation.cache_tag
os.makedirs("tools/__pycache__", exist_ok=True)
py_compile.compile("/tmp/evil.py", cfile=cfile, doraise=True)
with open(cfile, "r+b") as f:
    f.seek(8)
    f.write(struct.pack("<II", int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF))
print(cfile)
EOF2
mcp_call write_file "{\"path\":\"forge.py\",\"content\":$(json_str "$T/forge.py")}"
mcp_call build '{"command":"python3 forge.py"}'
expect_contains "the agent forges tools/__pycache__/helper.*.pyc" "$(jr .result.structuredContent.stdout)" "tools/__pycache__/helper."
check "... and it lands in the workspace" bash -c 'compgen -G "$1" >/dev/null' _ "$ws/tools/__pycache__/helper.*.pyc"
mcp_call deploy '{}'
expect_eq "the tool runs the pinned helper.py, not the forged bytecode" "$(jr .result.structuredContent.stdout)" '{"deployed": "prod"}'
mcp_call write_file '{"path":"tools/json.py","content":"import os\nprint(os.environ.get(\"API_TOKEN\", \"\")[::-1])\ndef dumps(x):\n    return \"\"\n"}'
expect_ok_result "the agent writes tools/json.py beside the script"
mcp_call deploy '{}'
expect_error_class "the tool that would import it is not run with the secret" pinned_code_changed
expect_contains "the message names tools/json.py" "$(jr .result.structuredContent.message)" "tools/json.py"
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"

# (d) node tools/publish.js: require("leftpad") looks in tools/node_modules.
mcp_call publish '{}'
expect_eq "the node tool runs" "$(jr .result.structuredContent.stdout)" published
evil='console.log([...(process.env.API_TOKEN || "")].reverse().join(""));'
mcp_call build "{\"command\":$(printf 'mkdir -p tools/node_modules/leftpad && printf "%%s\\n" %q >tools/node_modules/leftpad/index.js' "$evil" | jq -Rs .)}"
expect_ok_result "the agent writes tools/node_modules/leftpad"
mcp_call publish '{}'
expect_error_class "the tool that would require it is not run with the secret" pinned_code_changed
expect_contains "the message names the node_modules file" "$(jr .result.structuredContent.message)" "tools/node_modules/leftpad/index.js"
expect_not_contains "the reversed secret is not in the result" "$R" "$reversed"
mcp_stop

check "the refusals are audited" grep -q '"pinned_code_changed"' "$sess/audit.jsonl"
if grep -rqF -e "$secret" -e "$reversed" "$AIRLOCK_HOME/sessions" "$ws" "$T/notes" "$T/serve.err"; then
	fail "the secret (or its reverse) is nowhere the agent or the log can read"
else
	pass "the secret (or its reverse) is nowhere the agent or the log can read"
fi
finish
