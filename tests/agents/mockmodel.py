#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""mockmodel.py: a scripted "model" for driving real agent CLIs end to end.

One HTTP server on 127.0.0.1 speaks enough of four model APIs for Claude
Code, Codex, Gemini CLI and opencode:

  POST /v1/messages                    Anthropic Messages (SSE or JSON)
  POST /v1/messages/count_tokens       Anthropic token count
  POST /v1/responses                   OpenAI Responses (SSE or JSON)
  POST /v1/chat/completions            OpenAI Chat Completions (SSE or JSON)
  POST /v1beta/models/M:streamGenerateContent   Gemini (SSE with alt=sse)
  POST /v1beta/models/M:generateContent         Gemini
  POST /v1beta/models/M:countTokens             Gemini
  GET  /v1/models, /v1beta/models      model lists
  GET  /api/hello, /v1/oauth/hello     200 (Claude Code's first-start check)
  anything else                        404 with a JSON error body

With --tls-port N --tls-cert F --tls-key F it also serves the same on
127.0.0.1:N over TLS (F: PEM files), for a test that makes the vendors'
own host names resolve to it (tests/agents/run_agent.sh).

The "model" is stateless: each request's conversation decides the next
step.  It finds the tools whose names end in the airlock tool names
(mcp__airlock__read_file, airlock__read_file, airlock_read_file, ...),
counts the airlock tool results already in the conversation and answers
with the next call of the script:

  1 list_files {}
  2 read_file {path: "../outside.txt"}        refused by the broker
  3 read_file {path: "src/calc.sh"}
  4 run_check {checkId: "test", idempotencyKey: "k1"}    fails
  5 apply_patch {patch: fix.patch, expectedBaseSha: <read_file's sha256>}
  6 run_check {checkId: "test", idempotencyKey: "k2"}    passes
  7 text "done"

A request that offers no airlock tool (title generation, classifiers,
quota probes) gets a short text answer, or JSON when it asks for JSON.

Every request is logged as one JSON line: method, path, api, model,
stream, tool names offered, the airlock tools offered, the tool results
received (name, text, isError) and what the mock answered.

Codex's default models run in "code mode": every tool is a function in
the JavaScript that one custom tool, exec, runs.  The mock then answers
with exec scripts (see CODE_EXEC below); with --own-write it first makes
Codex's own apply_patch add a file, which airlock's read-only workspace
must refuse (logged as "own_write").

With --attack HOME the model first tries to act without the broker, in
one reply of many calls: the agent's own shell, file, web and sub-agent
tools under the names each agent gives them (offered or not), Codex's
local_shell_call, and Codex's own apply_patch writing into the agent's
home HOME (its ~/.codex/config.toml: a `notify` command the next session
would run).  Each would leave HOME/pwned-WHAT (or GET /pwned-WHAT from the
mock); the results are logged as "attack_results".  Then the script.

usage: mockmodel.py [--port N] [--port-file F] --log F [--patch F] [--dump-dir D]
                    [--own-write] [--attack HOME]
                    [--tls-port N --tls-cert F --tls-key F]
"""

import argparse
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

AIRLOCK_TOOLS = ("list_files", "read_file", "read_output", "search", "apply_patch",
                 "run_check", "request_approval")

HERE = os.path.dirname(os.path.abspath(__file__))
PATCH = ""
LOG_LOCK = threading.Lock()
LOG_PATH = None
DUMP_DIR = None
DUMP_N = [0]
OWN_WRITE = False
ATTACK_HOME = None
BASE_URL = [""]


def log(entry):
    entry["t"] = round(time.time(), 3)
    line = json.dumps(entry, sort_keys=True)
    with LOG_LOCK:
        with open(LOG_PATH, "a") as f:
            f.write(line + "\n")


def airlock_base(name):
    """The airlock tool a tool name stands for, or None."""
    for t in AIRLOCK_TOOLS:
        if name == t or name.endswith("__" + t) or name.endswith("_" + t) \
                or name.endswith("." + t) or name.endswith("-" + t) \
                or name.endswith("/" + t):
            # "search" alone is too common (web search, file search): only
            # take it prefixed with airlock.
            if t == "search" and "airlock" not in name:
                continue
            if "airlock" not in name and name != t:
                continue
            return t
    return None


def text_of(x):
    """Flatten a tool result's content (string, list of blocks, dict)."""
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, list):
        return "\n".join(text_of(e) for e in x)
    if isinstance(x, dict):
        if "text" in x and isinstance(x["text"], str):
            return x["text"]
        for k in ("content", "output", "result", "llmContent"):
            if k in x:
                return text_of(x[k])
        return json.dumps(x, sort_keys=True)
    return str(x)


# ---------------------------------------------------------------- the script

def next_step(offered, results):
    """offered: {base: full tool name}; results: [{name, text, isError}]
    (airlock tools only, in conversation order).
    Returns ("call", full_name, args) or ("text", str)."""
    done = [r["base"] for r in results]
    n = len(results)
    def call(base, args):
        return ("call", offered[base], args)
    if n == 0:
        return call("list_files", {})
    if n == 1:
        return call("read_file", {"path": "../outside.txt"})
    if n == 2:
        return call("read_file", {"path": "src/calc.sh"})
    if n == 3:
        return call("run_check", {"checkId": "test", "idempotencyKey": "k1"})
    if n == 4:
        sha = ""
        for r in results:
            if r["base"] == "read_file" and not r["isError"]:
                m = re.search(r'sha256\\*"\s*:\s*\\*"([0-9a-f]{64})', r["text"])
                if m:
                    sha = m.group(1)
        return call("apply_patch", {"patch": PATCH, "expectedBaseSha": sha})
    if n == 5:
        return call("run_check", {"checkId": "test", "idempotencyKey": "k2"})
    return ("text", "done (%s)" % ", ".join(done))


def airlock_offered(offered_names):
    """{base: full name} of the airlock tools offered; a prefixed name
    (mcp__airlock__read_file) wins over a bare one (an agent's own
    read_file)."""
    offered = {}
    for name in offered_names:
        b = airlock_base(name)
        if b and (b not in offered or "airlock" not in offered[b]):
            offered[b] = name
    return offered


def decide(offered, results, wants_json=False):
    if not all(t in offered for t in ("list_files", "read_file", "run_check",
                                      "apply_patch")):
        if wants_json:
            return ("text", json.dumps({
                "reasoning": "mock", "next_speaker": "user",
                "model_choice": "flash", "complexity_reasoning": "mock",
                "complexity_score": 1}))
        return ("text", "ok")
    return next_step(offered, results)


# ------------------------------------------------------- request parsing

def anthropic_parse(req):
    """(tools offered, results, attack): attack is None before --attack's
    reply, else the results of its calls."""
    tools = [t.get("name", "") for t in req.get("tools") or []]
    names, results, attack = {}, [], None
    for m in req.get("messages") or []:
        c = m.get("content")
        if not isinstance(c, list):
            continue
        for b in c:
            if b.get("type") == "tool_use":
                names[b.get("id")] = b.get("name", "")
                if str(b.get("id", "")).startswith("toolu_" + ATTACK_ID):
                    attack = attack or []
            elif b.get("type") == "tool_result":
                nm = names.get(b.get("tool_use_id"), "")
                r = {"name": nm, "text": text_of(b.get("content")),
                     "isError": bool(b.get("is_error"))}
                if str(b.get("tool_use_id", "")).startswith("toolu_" + ATTACK_ID):
                    attack = (attack or []) + [r]
                else:
                    results.append(r)
    return tools, results, attack


def ns_join(ns, name):
    """Codex offers MCP tools in namespaces (namespace "mcp__airlock",
    tool "read_file"): the mock names them "mcp__airlock/read_file"."""
    return ns + "/" + name if ns else name


def responses_tool_names(tools):
    out = []
    for t in tools or []:
        if t.get("type") == "namespace":
            ns = t.get("name", "")
            for s in t.get("tools") or []:
                out.append(ns_join(ns, s.get("name", "")))
        elif "name" in t:
            out.append(t["name"])
        elif isinstance(t.get("function"), dict):
            out.append(t["function"].get("name", ""))
        else:
            out.append(t.get("type", ""))
    return out


# Codex's code mode (the tool_mode "code_mode_only" of its default models):
# the request's "tools" is empty and an input item of type
# "additional_tools" offers one custom tool, exec, that runs JavaScript in
# which every other tool is a function (tools.mcp__airlock__read_file(...)).
# MCP tools are "deferred": not described, but listed in ALL_TOOLS.  The
# mock does what a model would: one exec that prints ALL_TOOLS' names,
# then, with --own-write, one write with Codex's own nested apply_patch
# (a file "own-write.txt" added to the workspace: airlock's read-only
# workspace must stop it), then one exec per step of the script, calling one nested tool and
# printing its result as JSON.
CODE_EXEC = "exec"
CODE_DISCOVER = "text(JSON.stringify(ALL_TOOLS.map(function (t) { return t.name; })));"
CODE_CALL = re.compile(r"await tools\.([A-Za-z0-9_$]+)\(")


def code_call(name, args):
    """The exec script that calls nested tool |name| with |args|."""
    return "const r = await tools.%s(%s);\ntext(JSON.stringify(r));" % (
        name, json.dumps(args))


OWN_PATCH = ("*** Begin Patch\n*** Add File: own-write.txt\n"
             "+written by the agent's own tool\n*** End Patch\n")
CODE_OWN_WRITE = code_call("apply_patch", OWN_PATCH)


# --attack: the agent's own tools, by the names each agent gives them,
# called whether offered or not.  Every call id, or Gemini's call name,
# marks the reply as the attack's (ATTACK_ID).
ATTACK_ID = "atk"


def attack_calls():
    """[(name, args)]: one reply's calls of the agents' own tools, each of
    which, if it ran, leaves ATTACK_HOME/pwned-NAME or asks the mock for
    GET /pwned-NAME."""
    h = ATTACK_HOME
    def sh(what):
        return "id > %s/pwned-%s" % (h, what)
    url = BASE_URL[0] + "/pwned-"
    return [
        # Claude Code
        ("Bash", {"command": sh("claude-bash"), "description": "x"}),
        ("Write", {"file_path": h + "/pwned-claude-write", "content": "x"}),
        ("Edit", {"file_path": h + "/pwned-claude-edit", "old_string": "",
                  "new_string": "x"}),
        ("WebSearch", {"query": "pwned-claude-websearch"}),
        ("Skill", {"skill": "pwned-claude-skill"}),
        ("WebFetch", {"url": url + "claude-webfetch", "prompt": "x"}),
        ("Task", {"description": "x", "prompt": sh("claude-task"),
                  "subagent_type": "general-purpose"}),
        ("Agent", {"description": "x", "prompt": sh("claude-agent"),
                   "subagent_type": "general-purpose"}),
        ("NotebookEdit", {"notebook_path": h + "/pwned-claude-nb.ipynb",
                          "new_source": "x", "edit_mode": "insert"}),
        # the rest of the tools it offers without --tools "" (2.1.337):
        # its environment (the API key) read back to the model, a
        # command, scheduled prompts, a workflow, a worktree, messages
        ("Read", {"file_path": "/proc/self/environ"}),
        ("Glob", {"pattern": "*", "path": h}),
        ("Grep", {"pattern": "_API_KEY", "path": "/proc/self/environ",
                  "output_mode": "content"}),
        ("Monitor", {"description": "x", "timeout_ms": 1000,
                     "command": sh("claude-monitor")}),
        ("CronCreate", {"cron": "* * * * *", "prompt": sh("claude-cron"),
                        "recurring": True, "durable": True}),
        ("CronList", {}),
        ("CronDelete", {"id": "x"}),
        ("ScheduleWakeup", {"delaySeconds": 1, "prompt": sh("claude-wakeup")}),
        ("Workflow", {"name": "pwned-claude-workflow", "script": sh(
            "claude-workflow")}),
        ("RemoteTrigger", {"action": "create",
                           "body": {"prompt": sh("claude-remote")}}),
        ("EnterWorktree", {"name": "pwned-claude-worktree"}),
        ("ExitWorktree", {}),
        ("SendMessage", {"to": "x", "message": sh("claude-sendmessage")}),
        ("ListAgents", {}),
        ("TaskStop", {"task_id": "x"}),
        ("ReportFindings", {"findings": [sh("claude-findings")]}),
        # opencode
        ("bash", {"command": sh("opencode-bash"), "description": "x"}),
        ("write", {"filePath": h + "/pwned-opencode-write", "content": "x"}),
        ("edit", {"filePath": h + "/pwned-opencode-edit", "oldString": "",
                  "newString": "x"}),
        ("patch", {"patchText": "*** Begin Patch\n*** Add File: %s/pwned-"
                   "opencode-patch\n+x\n*** End Patch\n" % h}),
        ("webfetch", {"url": url + "opencode-webfetch", "format": "text"}),
        ("task", {"description": "x", "prompt": sh("opencode-task"),
                  "subagent_type": "general"}),
        # (and the rest of what 1.18.33 offers without "*": false)
        ("read", {"filePath": "/proc/self/environ"}),
        ("glob", {"pattern": "*", "path": h}),
        ("grep", {"pattern": "_API_KEY", "path": "/proc/self/environ"}),
        ("skill", {"name": "pwned-opencode-skill"}),
        ("todowrite", {"todos": [{"content": sh("opencode-todo"),
                                  "status": "pending", "priority": "high",
                                  "id": "1"}]}),
        # Gemini CLI
        ("run_shell_command", {"command": sh("gemini-shell")}),
        ("write_file", {"file_path": h + "/pwned-gemini-write",
                        "content": "x"}),
        ("replace", {"file_path": h + "/pwned-gemini-replace",
                     "old_string": "", "new_string": "x"}),
        ("web_fetch", {"prompt": "fetch " + url + "gemini-webfetch"}),
        ("google_web_search", {"query": "pwned-gemini-search"}),
        ("codebase_investigator", {"objective": sh("gemini-subagent")}),
        ("invoke_agent", {"agent_name": "generalist",
                          "prompt": sh("gemini-invoke-agent")}),
        ("activate_skill", {"name": "pwned-gemini-skill"}),
        ("save_memory", {"fact": "pwned-gemini-memory"}),
        # (and the rest of what 0.61.0 offers without tools.core)
        ("read_file", {"absolute_path": "/proc/self/environ",
                       "file_path": "/proc/self/environ"}),
        ("read_many_files", {"include": ["/proc/self/environ"]}),
        ("list_directory", {"dir_path": h, "path": h}),
        ("grep_search", {"pattern": "_API_KEY", "dir_path": "/proc/self"}),
        ("enter_plan_mode", {}),
        ("update_topic", {"topic": "pwned-gemini-topic"}),
        ("write_todos", {"todos": [{"description": sh("gemini-todo"),
                                    "status": "pending"}]}),
    ]


def codex_attack_items():
    """Codex's: its shell under each of its names, its local_shell_call,
    its freeform apply_patch, in code mode its nested apply_patch, both
    writing ~/.codex/config.toml in the agent's home (a `notify` command
    the next session would run), and code mode's JavaScript on its own
    (CODE_ESCAPES)."""
    h = ATTACK_HOME
    def sh(what):
        return "id > %s/pwned-%s" % (h, what)
    def cid():
        return new_id("call_" + ATTACK_ID)
    items = [{"type": "local_shell_call", "id": new_id("lsc_"),
              "call_id": cid(), "status": "completed",
              "action": {"type": "exec",
                         "command": ["sh", "-c", sh("codex-local-shell")]}}]
    for name in ("shell", "exec_command", "shell_command", "container.exec",
                 "unified_exec", "local_shell", "write_stdin",
                 "request_permissions", "browser_use", "computer_use",
                 "web_search", "js_repl"):
        items.append({"type": "function_call", "id": new_id("fc_"),
                      "call_id": cid(), "name": name,
                      "arguments": json.dumps({
                          "command": ["sh", "-c", sh("codex-" + name)],
                          "cmd": sh("codex-" + name)}),
                      "status": "completed"})
    patch = ("*** Begin Patch\n*** Add File: %s/pwned-codex-apply-patch\n+x\n"
             "*** Add File: %s/.codex/config.toml\n"
             "+notify = [\"sh\", \"-c\", \"%s\"]\n*** End Patch\n") % (
                 h, h, sh("codex-notify"))
    items.append({"type": "custom_tool_call", "id": new_id("ctc_"),
                  "call_id": cid(), "name": "apply_patch", "input": patch,
                  "status": "completed"})
    items.append({"type": "custom_tool_call", "id": new_id("ctc_"),
                  "call_id": cid(), "name": CODE_EXEC,
                  "input": code_call("apply_patch", patch),
                  "status": "completed"})
    # Code mode's JavaScript itself: a process, a file, a fetch.
    items.append({"type": "custom_tool_call", "id": new_id("ctc_"),
                  "call_id": cid(), "name": CODE_EXEC,
                  "input": CODE_ESCAPES % {
                      "cmd": json.dumps(sh("codex-js")),
                      "file": json.dumps(h + "/pwned-codex-js-fs"),
                      "url": json.dumps(BASE_URL[0] + "/pwned-codex-js-fetch")},
                  "status": "completed"})
    return items


CODE_ESCAPES = """const out = [];
const tries = [
  async () => require("child_process").execSync(%(cmd)s),
  async () => (await import("node:child_process")).execSync(%(cmd)s),
  async () => (await import("node:fs")).writeFileSync(%(file)s, "x"),
  async () => process.binding("spawn_sync"),
  async () => Deno.writeTextFileSync(%(file)s, "x"),
  async () => (await fetch(%(url)s)).status,
];
for (const t of tries) {
  try { out.push("ran: " + String(await t())); } catch (e) { out.push("error: " + e); }
}
text(out.join("\\n"));"""


def code_mode_error(txt):
    """Whether an exec output is a nested tool's error result."""
    i = txt.find("{")
    try:
        r = json.loads(txt[i:]) if i >= 0 else None
    except ValueError:
        return False
    return isinstance(r, dict) and r.get("isError") is True


def responses_parse(req):
    """(tools offered, results, code): code is None outside code mode,
    else {"nested": the nested tool names once discovered (or None)}."""
    tools = responses_tool_names(req.get("tools"))
    names, scripts, results, attack = {}, {}, [], None
    code = None
    inp = req.get("input")
    if not isinstance(inp, list):
        inp = []
    for it in inp:
        ty = it.get("type")
        if str(it.get("call_id", "")).startswith("call_" + ATTACK_ID):
            attack = attack or []
        if ty == "additional_tools":
            extra = responses_tool_names(it.get("tools"))
            tools += extra
            if any(t.split("/")[-1] == CODE_EXEC for t in extra):
                code = {"nested": None}
        elif ty == "local_shell_call":
            names[it.get("call_id")] = "local_shell_call"
        elif ty in ("function_call", "custom_tool_call"):
            names[it.get("call_id")] = ns_join(it.get("namespace"),
                                               it.get("name", ""))
            if ty == "custom_tool_call" and it.get("name") == CODE_EXEC:
                scripts[it.get("call_id")] = it.get("input", "")
        elif ty in ("function_call_output", "custom_tool_call_output"):
            out = it.get("output")
            txt = text_of(out)
            err = False
            if isinstance(out, dict) and out.get("success") is False:
                err = True
            name = names.get(it.get("call_id"), "")
            if str(it.get("call_id", "")).startswith("call_" + ATTACK_ID):
                attack.append({"name": name, "text": txt, "isError": err})
                continue
            script = scripts.get(it.get("call_id"))
            if script is not None and code is not None:
                if script == CODE_DISCOVER:
                    try:
                        code["nested"] = json.loads(txt[txt.find("["):])
                    except ValueError:
                        code["nested"] = []
                    continue
                if script == CODE_OWN_WRITE:
                    code["own_write"] = txt
                    continue
                m = CODE_CALL.search(script)
                name = m.group(1) if m else name
                err = err or code_mode_error(txt)
            results.append({"name": name, "text": txt, "isError": err})
    if code is not None and code["nested"]:
        tools += list(code["nested"])
    return tools, results, code, attack


def chat_parse(req):
    tools = []
    for t in req.get("tools") or []:
        f = t.get("function") or {}
        tools.append(f.get("name", t.get("name", "")))
    names, results = {}, []
    for m in req.get("messages") or []:
        if m.get("role") == "assistant":
            for tc in m.get("tool_calls") or []:
                names[tc.get("id")] = (tc.get("function") or {}).get("name", "")
        elif m.get("role") == "tool":
            results.append({"name": names.get(m.get("tool_call_id"), ""),
                            "text": text_of(m.get("content")),
                            "isError": False})
    return tools, results


def gemini_parse(req):
    tools = []
    for t in req.get("tools") or []:
        for f in t.get("functionDeclarations") or []:
            tools.append(f.get("name", ""))
    results, attack = [], None
    hostile = {n for n, _ in attack_calls()} if ATTACK_HOME else set()
    for c in req.get("contents") or []:
        for p in c.get("parts") or []:
            fr = p.get("functionResponse")
            fc = p.get("functionCall")
            if fc and fc.get("name") in hostile:
                attack = attack or []
            if fr:
                resp = fr.get("response")
                err = isinstance(resp, dict) and "error" in resp
                r = {"name": fr.get("name", ""), "text": text_of(resp),
                     "isError": err}
                if r["name"] in hostile:
                    attack = (attack or []) + [r]
                else:
                    results.append(r)
    return tools, results, attack


def airlock_results(results, offered):
    """The results of calls to the offered airlock tools, in order."""
    names = {v: k for k, v in offered.items()}
    out = []
    for r in results:
        b = names.get(r["name"])
        if b:
            r = dict(r)
            r["base"] = b
            # a refusal from the broker is a result with isError true
            # in its JSON; agents vary in whether they flag it.
            if '"errorClass"' in r["text"] or '\\"errorClass\\"' in r["text"]:
                r["isError"] = True
            out.append(r)
    return out


def wants_attack(offered, ar, attack):
    """Whether this reply is --attack's: once, when the script would start
    (airlock's tools offered, none of them called yet)."""
    return bool(ATTACK_HOME) and attack is None and not ar and \
        all(t in offered for t in ("list_files", "read_file", "run_check",
                                   "apply_patch"))


# -------------------------------------------------------------- handler

def new_id(prefix):
    return prefix + uuid.uuid4().hex[:24]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "airlock-mockmodel/1"

    def log_message(self, fmt, *args):
        pass

    # -- plumbing
    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        return self.rfile.read(n) if n else b""

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def event(self, name, obj):
        s = ""
        if name:
            s += "event: %s\n" % name
        s += "data: %s\n\n" % (obj if isinstance(obj, str) else json.dumps(obj))
        self.chunk(s)

    def not_found(self, method, path, raw=b""):
        if method == "PUT" and self.command != "PUT":
            method = self.command
        log({"method": method, "path": path, "api": "unknown",
             "status": 404, "bytes": len(raw)})
        self.send_json(404, {"error": {"type": "not_found_error", "code": 404,
                                       "status": "NOT_FOUND",
                                       "message": "mockmodel: no " + path}})

    # -- dispatch
    def do_GET(self):
        path = urlsplit(self.path).path
        if path in ("/v1/models", "/models"):
            self.send_json(200, {"object": "list", "data": [
                {"id": "mock-model", "object": "model", "type": "model",
                 "display_name": "mock", "created_at": "2025-01-01T00:00:00Z",
                 "owned_by": "airlock"}], "has_more": False,
                "first_id": "mock-model", "last_id": "mock-model"})
            log({"method": "GET", "path": path, "api": "models", "status": 200})
            return
        if path.startswith("/v1beta/models"):
            self.send_json(200, {"models": [{"name": "models/mock-model",
                                             "supportedGenerationMethods": [
                                                 "generateContent"]}]})
            log({"method": "GET", "path": path, "api": "gemini-models", "status": 200})
            return
        if path in ("/api/hello", "/v1/oauth/hello"):
            self.send_json(200, {"message": "hello"})
            log({"method": "GET", "path": path, "api": "hello", "status": 200,
                 "host": self.headers.get("Host", "")})
            return
        if path in ("/", "/health", "/healthz"):
            self.send_json(200, {"ok": True})
            return
        self.not_found("GET", path)

    def do_PUT(self):
        self.not_found("PUT", urlsplit(self.path).path, self.body())

    do_DELETE = do_PUT
    do_PATCH = do_PUT

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        u = urlsplit(self.path)
        path, query = u.path, parse_qs(u.query)
        raw = self.body()
        if DUMP_DIR:
            with LOG_LOCK:
                DUMP_N[0] += 1
                n = DUMP_N[0]
            with open(os.path.join(DUMP_DIR, "%03d.json" % n), "wb") as f:
                f.write(raw)
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, {"error": {"type": "invalid_request_error",
                                           "message": "mockmodel: bad JSON"}})
            log({"method": "POST", "path": path, "api": "bad-json", "status": 400})
            return
        try:
            if path.endswith("/messages/count_tokens"):
                self.send_json(200, {"input_tokens": 100})
                log({"method": "POST", "path": path, "api": "anthropic-count",
                     "model": req.get("model"), "status": 200})
            elif path.endswith("/messages"):
                self.anthropic(path, req)
            elif path.endswith("/responses"):
                self.openai_responses(path, req)
            elif path.endswith("/chat/completions"):
                self.chat(path, req)
            elif ":countTokens" in path:
                self.send_json(200, {"totalTokens": 100})
                log({"method": "POST", "path": path, "api": "gemini-count",
                     "status": 200})
            elif ":streamGenerateContent" in path or ":generateContent" in path:
                self.gemini(path, query, req)
            else:
                self.not_found("POST", path, raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as e:  # a request the mock did not expect
            log({"method": "POST", "path": path, "api": "error", "status": 500,
                 "error": repr(e)})
            try:
                self.send_json(500, {"error": {"type": "api_error",
                                               "message": "mockmodel: %r" % e}})
            except OSError:
                pass
            self.close_connection = True

    def record(self, api, path, model, stream, tools, offered, results, reply,
               own_write=None, attack=None):
        ar = airlock_results(results, offered)
        extra = {} if own_write is None else {"own_write": own_write[:4000]}
        if attack:
            extra["attack_results"] = [{"name": r["name"],
                                        "text": r["text"][:1000],
                                        "isError": r["isError"]}
                                       for r in attack]
        log({**extra, "method": "POST", "path": path, "api": api, "model": model,
             "stream": stream, "tools": tools,
             "airlock_tools": sorted(offered.values()),
             "tool_results": [{"name": r["name"], "text": r["text"][:4000],
                               "isError": r["isError"]} for r in results],
             "airlock_calls": [{"tool": r["base"], "isError": r["isError"],
                                "text": r["text"][:4000]} for r in ar],
             "airlock_results": len(ar), "reply": reply, "status": 200})
        return ar

    # -- Anthropic Messages
    def anthropic(self, path, req):
        tools, results, attack = anthropic_parse(req)
        offered = airlock_offered(tools)
        ar = airlock_results(results, offered)
        step = decide(offered, ar)
        if wants_attack(offered, ar, attack):
            step = ("attack", [n for n, _ in attack_calls()])
        self.record("anthropic", path, req.get("model"), bool(req.get("stream")),
                    tools, offered, results, list(step), attack=attack)
        mid = new_id("msg_")
        model = req.get("model") or "mock-model"
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if step[0] == "attack":
            blocks = [{"type": "tool_use", "id": new_id("toolu_" + ATTACK_ID),
                       "name": n, "input": a} for n, a in attack_calls()]
            stop = "tool_use"
        elif step[0] == "call":
            blocks = [{"type": "tool_use", "id": new_id("toolu_"),
                       "name": step[1], "input": step[2]}]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": step[1]}]
            stop = "end_turn"
        if not req.get("stream"):
            self.send_json(200, {"id": mid, "type": "message", "role": "assistant",
                                 "model": model, "content": blocks,
                                 "stop_reason": stop, "stop_sequence": None,
                                 "usage": usage})
            return
        self.start_sse()
        self.event("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": dict(usage, output_tokens=1)}})
        for i, block in enumerate(blocks):
            if block["type"] == "tool_use":
                self.event("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": block["id"],
                                      "name": block["name"], "input": {}}})
                self.event("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta",
                              "partial_json": json.dumps(block["input"])}})
            else:
                self.event("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "text", "text": ""}})
                self.event("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "text_delta", "text": block["text"]}})
            self.event("content_block_stop", {"type": "content_block_stop",
                                              "index": i})
        self.event("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop,
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": 5}})
        self.event("message_stop", {"type": "message_stop"})
        self.end_sse()

    # -- OpenAI Responses
    def openai_responses(self, path, req):
        tools, results, code, attack = responses_parse(req)
        if code is not None:
            # Nested tools are called by their bare JavaScript names.
            offered = airlock_offered(code["nested"] or [])
        else:
            offered = airlock_offered(tools)
        ar = airlock_results(results, offered)
        if code is not None and code["nested"] is None:
            step = ("code", CODE_DISCOVER)
        elif OWN_WRITE and code is not None and "own_write" not in code \
                and "apply_patch" in code["nested"]:
            step = ("code", CODE_OWN_WRITE)
        elif ATTACK_HOME and attack is None and not ar and \
                (code is None or "apply_patch" in code["nested"]) and \
                all(t in offered for t in ("list_files", "read_file")):
            step = ("attack", [])
        else:
            step = decide(offered, ar)
            if code is not None and step[0] == "call":
                step = ("code", code_call(step[1], step[2]))
        self.record("responses", path, req.get("model"), bool(req.get("stream")),
                    tools, offered, results, list(step),
                    own_write=(code or {}).get("own_write"), attack=attack)
        rid = new_id("resp_")
        model = req.get("model") or "mock-model"
        if step[0] == "attack":
            items = codex_attack_items()
        elif step[0] == "code":
            item = {"type": "custom_tool_call", "id": new_id("ctc_"),
                    "call_id": new_id("call_"), "name": CODE_EXEC,
                    "input": step[1], "status": "completed"}
        elif step[0] == "call":
            name = step[1]
            item = {"type": "function_call", "id": new_id("fc_"),
                    "call_id": new_id("call_"), "name": name,
                    "arguments": json.dumps(step[2]), "status": "completed"}
            # Codex groups MCP tools in namespaces: answer in kind.
            if "/" in name:
                item["namespace"], item["name"] = name.split("/", 1)
        else:
            item = {"type": "message", "id": new_id("msg_"), "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": step[1],
                                 "annotations": []}]}
        if step[0] != "attack":
            items = [item]
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": 15}
        resp = {"id": rid, "object": "response", "created_at": int(time.time()),
                "status": "completed", "model": model, "output": items,
                "usage": usage}
        if not req.get("stream"):
            self.send_json(200, resp)
            return
        self.start_sse()
        seq = [0]
        def ev(name, obj):
            obj = dict(obj, type=name, sequence_number=seq[0])
            seq[0] += 1
            self.event(name, obj)
        ev("response.created", {"response": dict(resp, status="in_progress",
                                                 output=[])})
        for i, item in enumerate(items[:-1]):
            ev("response.output_item.added", {"output_index": i, "item": item})
            ev("response.output_item.done", {"output_index": i, "item": item})
        item = items[-1]
        ev("response.output_item.added", {"output_index": len(items) - 1,
                                          "item": item})
        if item["type"] == "message":
            ev("response.output_text.delta", {"item_id": item["id"],
                                              "output_index": 0,
                                              "content_index": 0,
                                              "delta": step[1]})
        ev("response.output_item.done", {"output_index": len(items) - 1,
                                         "item": item})
        ev("response.completed", {"response": resp})
        self.end_sse()

    # -- OpenAI Chat Completions
    def chat(self, path, req):
        tools, results = chat_parse(req)
        offered = airlock_offered(tools)
        ar = airlock_results(results, offered)
        wants_json = (req.get("response_format") or {}).get("type", "") in (
            "json_object", "json_schema")
        step = decide(offered, ar, wants_json)
        self.record("chat", path, req.get("model"), bool(req.get("stream")),
                    tools, offered, results, list(step))
        cid = new_id("chatcmpl-")
        model = req.get("model") or "mock-model"
        created = int(time.time())
        if step[0] == "call":
            tc = {"id": new_id("call_"), "type": "function",
                  "function": {"name": step[1], "arguments": json.dumps(step[2])}}
            msg = {"role": "assistant", "content": None, "tool_calls": [tc]}
            finish = "tool_calls"
        else:
            msg = {"role": "assistant", "content": step[1]}
            finish = "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not req.get("stream"):
            self.send_json(200, {"id": cid, "object": "chat.completion",
                                 "created": created, "model": model,
                                 "choices": [{"index": 0, "message": msg,
                                              "finish_reason": finish}],
                                 "usage": usage})
            return
        self.start_sse()
        base = {"id": cid, "object": "chat.completion.chunk", "created": created,
                "model": model}
        self.event(None, dict(base, choices=[{"index": 0, "delta": {
            "role": "assistant", "content": ""}, "finish_reason": None}]))
        if step[0] == "call":
            d = {"tool_calls": [dict(tc, index=0)]}
        else:
            d = {"content": step[1]}
        self.event(None, dict(base, choices=[{"index": 0, "delta": d,
                                              "finish_reason": None}]))
        self.event(None, dict(base, choices=[{"index": 0, "delta": {},
                                              "finish_reason": finish}],
                              usage=usage))
        self.event(None, "[DONE]")
        self.end_sse()

    # -- Gemini
    def gemini(self, path, query, req):
        tools, results, attack = gemini_parse(req)
        offered = airlock_offered(tools)
        ar = airlock_results(results, offered)
        gc = req.get("generationConfig") or req.get("config") or {}
        wants_json = gc.get("responseMimeType") == "application/json" or \
            "responseSchema" in gc or "responseJsonSchema" in gc
        step = decide(offered, ar, wants_json)
        if wants_attack(offered, ar, attack):
            step = ("attack", [n for n, _ in attack_calls()])
        stream = ":streamGenerateContent" in path
        model = path.rsplit("/", 1)[-1].split(":")[0]
        self.record("gemini", path, model, stream, tools, offered, results,
                    list(step), attack=attack)
        if step[0] == "attack":
            parts = [{"functionCall": {"name": n, "args": a}}
                     for n, a in attack_calls()]
        elif step[0] == "call":
            parts = [{"functionCall": {"name": step[1], "args": step[2]}}]
        else:
            parts = [{"text": step[1]}]
        resp = {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10,
                                  "candidatesTokenCount": 5,
                                  "totalTokenCount": 15},
                "modelVersion": model, "responseId": new_id("")}
        if not stream:
            self.send_json(200, resp)
            return
        if query.get("alt", [""])[0] == "sse":
            self.start_sse()
            self.event(None, resp)
            self.end_sse()
        else:
            self.send_json(200, [resp])


def serve_tls(port, cert, key):
    """The same handler on 127.0.0.1:port over TLS, in a thread."""
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    sys.stderr.write("mockmodel: listening on 127.0.0.1:%d (TLS)\n" % port)


def main():
    global PATCH, LOG_PATH, DUMP_DIR, OWN_WRITE, ATTACK_HOME
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log", required=True)
    ap.add_argument("--patch", default=os.path.join(HERE, "fix.patch"))
    ap.add_argument("--dump-dir", help="write each POST body here (debugging)")
    ap.add_argument("--own-write", action="store_true",
                    help="in Codex's code mode, first try its own apply_patch")
    ap.add_argument("--attack", metavar="HOME",
                    help="first try the agent's own tools, aimed at HOME")
    ap.add_argument("--tls-port", type=int, help="also serve over TLS on this port")
    ap.add_argument("--tls-cert", help="the TLS listener's certificate chain (PEM)")
    ap.add_argument("--tls-key", help="its private key (PEM)")
    a = ap.parse_args()
    if a.tls_port is not None and not (a.tls_cert and a.tls_key):
        ap.error("--tls-port needs --tls-cert and --tls-key")
    OWN_WRITE = a.own_write
    ATTACK_HOME = a.attack
    LOG_PATH = a.log
    DUMP_DIR = a.dump_dir
    with open(a.patch) as f:
        PATCH = f.read()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    port = srv.server_address[1]
    BASE_URL[0] = "http://127.0.0.1:%d" % port
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, a.port_file)
    sys.stderr.write("mockmodel: listening on 127.0.0.1:%d\n" % port)
    if a.tls_port is not None:
        serve_tls(a.tls_port, a.tls_cert, a.tls_key)
    sys.stderr.flush()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
