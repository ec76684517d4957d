#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""check_log.py: assertions on mockmodel.py's request log for one agent run.

usage: check_log.py LOG [--only-airlock] [--extra NAME ...]
                        [--xfail-output] [--xfail-refusal-text]
                        [--own-write-refused] [--attacked]

Prints TAP-style "ok - ..." / "not ok - ..." lines (and "ok - ... # XFAIL"
for a known gap), exits 1 if any check failed.

  --only-airlock        the script's requests offered airlock's tools and
                        nothing else (besides --extra names)
  --extra NAME          a non-airlock tool the agent still offers (measured,
                        recorded in its profile)
  --xfail-output        the failing check's output lines are known not to
                        reach this agent's model (it forwards only
                        structuredContent); report, do not fail
  --xfail-refusal-text  the broker's refusal is known to reach the model
                        as the MCP client's schema error, not airlock's
                        errorClass
  --own-write-refused   the agent's own write tool was tried (mockmodel.py
                        --own-write) and reported a failure
  --attacked            the hostile reply (mockmodel.py --attack: the agent's
                        own tools, offered or not) was sent and every one of
                        its calls came back to the model as a result (each
                        by name, but Codex's, whose items the mock does not
                        name); run_agent.sh checks that nothing of it ran
"""

import argparse
import json
import sys

SCRIPT = ["list_files", "read_file", "read_file", "run_check", "apply_patch",
          "run_check"]
CORE = {"list_files", "read_file", "run_check", "apply_patch"}
FAIL_LINE = "FAIL: sum_to 4: expected 10, got 6"

failed = 0


def result(ok, name, xfail=False):
    global failed
    if ok:
        print("ok - %s%s" % (name, " # XPASS (a known gap is fixed: update "
                             "run_agent.sh)" if xfail else ""))
    elif xfail:
        print("ok - %s # XFAIL" % name)
    else:
        print("not ok - %s" % name)
        failed += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--only-airlock", action="store_true")
    ap.add_argument("--extra", action="append", default=[])
    ap.add_argument("--xfail-output", action="store_true")
    ap.add_argument("--xfail-refusal-text", action="store_true")
    ap.add_argument("--own-write-refused", action="store_true")
    ap.add_argument("--attacked", action="store_true")
    a = ap.parse_args()

    entries = []
    with open(a.log) as f:
        for line in f:
            entries.append(json.loads(line))
    apis = sorted({e.get("api") for e in entries})
    paths = sorted({"%s %s %s" % (e.get("method"), e.get("path"),
                                  e.get("status")) for e in entries})
    print("# endpoints: " + "; ".join(paths))
    unknown = [e for e in entries if e.get("status") == 404]
    if unknown:
        print("# unanswered (404): " + ", ".join(sorted({e["path"]
                                                           for e in unknown})))

    script = [e for e in entries if e.get("airlock_tools")]
    result(bool(script), "the model was offered airlock's tools (%d requests, "
           "apis %s)" % (len(script), ",".join(str(x) for x in apis)))
    if not script:
        return 1
    bases = set()
    for e in script:
        for t in e["airlock_tools"]:
            for c in CORE:
                if t.endswith(c):
                    bases.add(c)
    result(CORE <= bases, "offered tools include list_files, read_file, "
           "run_check, apply_patch")
    if a.only_airlock:
        allowed = set(a.extra)
        extra = set()
        for e in script:
            extra |= set(e["tools"]) - set(e["airlock_tools"]) - allowed
        result(not extra, "only airlock's tools were offered%s" %
               (" (besides %s)" % ", ".join(sorted(allowed)) if allowed else ""))
        if extra:
            print("#   also offered: " + ", ".join(sorted(extra)))

    if a.own_write_refused:
        own = [e["own_write"] for e in entries if "own_write" in e]
        text = own[-1] if own else ""
        result(bool(own) and ("patch rejected" in text
                              or "Failed to write" in text
                              or "ead-only file system" in text
                              or "ermission denied" in text),
               "the agent's own apply_patch was tried and failed")
        print("#   it answered: " + text[:300].replace("\n", " "))

    if a.attacked:
        sent = [e for e in entries if (e.get("reply") or [None])[0] == "attack"]
        back = [e["attack_results"] for e in entries if e.get("attack_results")]
        result(bool(sent) and bool(back), "the hostile model's calls of the "
               "agent's own tools were sent and answered")
        for r in (back[-1] if back else []):
            print("#   %s -> %s%s" % (r["name"], "error: " if r["isError"]
                                       else "", r["text"][:160].replace("\n", " ")))
        # (Codex's reply is its own items: mockmodel.py names no calls)
        called = sent[-1]["reply"][1] if sent and len(sent[-1]["reply"]) > 1 else []
        answered = {r["name"] for r in (back[-1] if back else [])}
        missing = [n for n in called if n not in answered]
        if called:
            result(not missing, "each of its %d calls came back%s" % (
                len(called), " (not: %s)" % ", ".join(missing) if missing else ""))

    last = script[-1]
    calls = last.get("airlock_calls") or []
    got = [c["tool"] for c in calls]
    result(got == SCRIPT, "each tool result reached the model, in order "
           "(%s)" % ", ".join(got))
    if got != SCRIPT:
        return 1
    errs = [c["isError"] for c in calls]
    result(errs == [False, True, False, False, False, False],
           "only the read of ../outside.txt failed (%s)" % errs)
    refusal = calls[1]["text"]
    result("errorClass" in refusal or "workspace-relative" in refusal,
           "the broker's refusal (errorClass, message) reached the model",
           xfail=a.xfail_refusal_text)
    if "errorClass" not in refusal:
        print("#   the model got: " + refusal[:300].replace("\n", " "))
    result("sha256" in calls[2]["text"], "read_file's content and sha256 "
           "reached the model")
    result('"exitCode":2' in calls[3]["text"].replace(" ", "")
           or '\\"exitCode\\":2' in calls[3]["text"].replace(" ", ""),
           "the first run_check failed (exitCode 2)")
    result(FAIL_LINE in calls[3]["text"], "the failing check's output lines "
           "reached the model", xfail=a.xfail_output)
    result("changedFiles" in calls[4]["text"], "apply_patch changed the file")
    result('"exitCode":0' in calls[5]["text"].replace(" ", "")
           or '\\"exitCode\\":0' in calls[5]["text"].replace(" ", ""),
           "the second run_check passed (exitCode 0)")
    final = [e for e in script if e.get("reply", [None])[0] == "text"
             and str(e["reply"][1]).startswith("done")]
    result(bool(final), "the model ended the script with its final answer")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
