# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""The value lists of the man pages against the code's tables: each list a
page gives (sideEffect, authorization and action values, the default
protected list, audit decisions, commands, exit statuses) must be exactly
the set the code has; and an example (a page's, README.md's) that
starts a vendor agent under airlock run uses its profile and
docs/WRAPPING.md's command.  Prints TAP-like "ok"/"not ok" lines; exit 1
on any mismatch.  Run by man_values.sh."""
import glob
import re
import shlex
import sys

top = sys.argv[1]


def read(path):
    with open(f"{top}/{path}", encoding="utf-8") as f:
        return f.read()


def c_array(path, name):
    m = re.search(r"%s\[\] = \{(.*?)\};" % re.escape(name), read(path), re.S)
    return set(re.findall(r'"([^"]+)"', m.group(1)))


def man_after(path, anchor, stop):
    """The .Li/.Cm words after the line matching anchor, until stop."""
    text = read(path)
    i = text.index(anchor)
    j = text.index(stop, i + len(anchor))
    words = set()
    for line in text[i + len(anchor):j].splitlines():
        if line.startswith((".Li ", ".Cm ")):
            for w in line[4:].split():
                w = w.strip(",.();")
                if re.fullmatch(r"[a-z][a-z_]*", w) and w != "or":
                    words.add(w)
    return words


failed = 0


def same(name, doc, code):
    global failed
    if doc == code:
        print(f"ok - {name}: the page lists exactly {sorted(code)}")
    else:
        failed += 1
        print(f"not ok - {name}: page has {sorted(doc)}, code has {sorted(code)}")
        print(f"  only in the page: {sorted(doc - code)}")
        print(f"  only in the code: {sorted(code - doc)}")


M5 = "docs/airlock-manifest.5"
same("sideEffect values (airlock-manifest(5))",
     man_after(M5, ".It Ic sideEffect : No enum", ".It "),
     c_array("policy/manifest.c", "side_effect_names"))
same("authorization values (airlock-manifest(5))",
     man_after(M5, ".It Ic authorization : No enum", "(a human"),
     c_array("policy/manifest.c", "authz_names"))
same("action values (airlock-manifest(5))",
     man_after(M5, ".It Ic action : No enum", "Actions that"),
     c_array("policy/manifest.c", "action_names"))

# The default of sandbox.protected: sandbox_defaults.c's list.
m = re.search(r"^\.It Ic protected : .* default Li \[(.*)\]$", read(M5), re.M)
same("sandbox.protected default (airlock-manifest(5))",
     {w.strip() for w in m.group(1).split(",")} if m else set(),
     c_array("policy/sandbox_defaults.c", "protected"))

# The values `audit show --decision` takes: cmd_audit.c's table of
# decision kinds, and "approval_required", the broker's own word for ask.
audit = read("supervisor/cmd_audit.c")
table = audit[audit.index("} decision_kinds[] = {"):]
table = table[:table.index("{ NULL,")]
kinds = set(re.findall(r'^\t\{ "([a-z_]+)",', table, re.M)) | {"approval_required"}
same("audit decisions (airlock-audit(1), --decision)",
     man_after("docs/airlock-audit.1", ".Fl -decision\n(one of:", ".Fl -since"),
     kinds)
# ...and every value the broker writes into "decision" records is one.
broker = read("broker/broker.c")
decisions = set(re.findall(r'\*?decision = "([a-z_]+)"', broker))
same("the broker's decisions are --decision values",
     decisions & kinds, decisions)

# The commands of main.c's table (those with a summary) in airlock(1).
main = read("supervisor/main.c")
cmds = set(re.findall(r'\{ "([a-z]+)",\s*cmd_\w+,\s*"', main))
doc = set()
text = read("docs/airlock.1")
sec = text[text.index("The commands are:"):text.index(".Sh ENVIRONMENT")]
for line in sec.splitlines():
    if line.startswith(".It Cm "):
        for w in line[7:].split():
            if w[0].isupper():	# a macro (Op, Fl, ...): the command ends
                break
            if w != ",":
                doc.add(w.strip(","))
same("commands (airlock(1))", doc, cmds)

# Exit statuses: commands.h plus 0, 1 and audit verify's 2 in airlock(1).
codes = set(re.findall(r"#define EXIT_[A-Z]+\s+(\d+)", read("supervisor/commands.h")))
sec = text[text.index(".Sh EXIT STATUS"):text.index(".Sh EXAMPLES")]
doc = set(re.findall(r"^\.It (\d+)$", sec, re.M))
same("exit statuses (airlock(1))", doc, codes | {"0", "1", "2"})

# A vendor agent started in a page's example runs under its profile with
# the options docs/WRAPPING.md gives it (tests/agents/doc_command.py):
# under the built-in manifest Claude Code got no API key and no network
# ("Not logged in"), and without the options it offered the model its own
# tools, not airlock's.
PROFILES = {"claude": "claude-code", "codex": "codex", "gemini": "gemini",
            "opencode": "opencode"}
sys.path.insert(0, f"{top}/tests/agents")
import doc_command  # noqa: E402
wrapping = read("docs/WRAPPING.md")


def wrapping_argv(agent):
    """WRAPPING.md's interactive command for agent, as words."""
    sec = doc_command.section(wrapping, doc_command.HEADINGS[agent])
    for line in doc_command.commands(sec):
        words = shlex.split(line)
        if "--" in words and words[words.index("--") + 1] == agent and \
                "TASK" not in words:
            return words[words.index("--") + 1:]
    return None


def man_examples(text):
    """The shell lines of a page's literal displays and .Dl lines."""
    out = []
    for block in re.findall(r"^\.Bd -literal[^\n]*\n(.*?)^\.Ed$", text,
                            re.S | re.M):
        out.extend(block.replace("\\e\n", " ").splitlines())
    out.extend(re.findall(r"^\.Dl (.*)$", text, re.M))
    return [line.replace("\\e", "\\").replace("\\&", "").lstrip("$ ")
            for line in out]


def readme_examples(text):
    """README.md's commands in backquotes, ./airlock as airlock."""
    return [c.replace("./airlock ", "airlock ", 1)
            for c in re.findall(r"`(\./airlock run [^`]*)`", text)]


pages = [(p[len(top) + 6:], man_examples(open(p, encoding="utf-8").read()))
         for p in sorted(glob.glob(f"{top}/docs/*.[15]"))]
pages.append(("README.md", readme_examples(read("README.md"))))
for name, lines in pages:
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words[:2] != ["airlock", "run"] or "--" not in words:
            continue
        agent = words[words.index("--") + 1]
        if agent not in PROFILES:
            continue
        want = ["--manifest", f"contrib/agents/{PROFILES[agent]}.yaml"]
        argv = words[words.index("--") + 1:]
        ok = any(words[i:i + 2] == want for i in range(len(words))) and \
            argv == wrapping_argv(agent)
        if ok:
            print(f"ok - {name}: its airlock run of {agent} is WRAPPING.md's")
        else:
            failed += 1
            print(f"not ok - {name}: airlock run ... -- {agent} without "
                  f"{' '.join(want)} and WRAPPING.md's options: {line}")

sys.exit(1 if failed else 0)
