#!/usr/bin/env python3
"""Lints an airlock Seatbelt (SBPL) profile.

usage: lint.py KNOWN PROFILE...

Fails (exit 1, one line per finding: "PROFILE: finding") when a profile
does not parse (unbalanced parentheses, an unterminated string), uses an
operation or filter not in KNOWN, does not start with (version 1) and
(deny default), allows an operation that KNOWN lists as "unfiltered"
without a filter, allows a "never-service" Mach service, allows writing
a "wide-write" root, or allows process-exec without a later deny of every
"ls-helper".  The allowed workspace itself may be any path: the lint
checks the profile's shape, the golden files its exact paths.
"""
import sys


class ParseError(Exception):
    pass


def tokens(text):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "()":
            yield c
            i += 1
        elif c == '"' or text.startswith('#"', i):
            regex = c == "#"
            i += 2 if regex else 1
            out = []
            while True:
                if i >= n:
                    raise ParseError("unterminated string")
                if text[i] == "\\" and i + 1 < n:
                    out.append(text[i:i + 2] if regex else text[i + 1])
                    i += 2
                    continue
                if text[i] == '"':
                    i += 1
                    break
                out.append(text[i])
                i += 1
            yield ("re" if regex else "str", "".join(out))
        else:
            j = i
            while j < n and text[j] not in " \t\r\n();\"":
                j += 1
            yield ("sym", text[i:j])
            i = j


def parse(text):
    stack, top = [], []
    for t in tokens(text):
        if t == "(":
            stack.append([])
        elif t == ")":
            if not stack:
                raise ParseError("unbalanced ')'")
            form = stack.pop()
            (stack[-1] if stack else top).append(form)
        else:
            (stack[-1] if stack else top).append(t)
    if stack:
        raise ParseError("unbalanced '(': %d left open" % len(stack))
    return top


def sym(x):
    return x[1] if isinstance(x, tuple) and x[0] == "sym" else None


def strings(form):
    """Every string literal inside |form|."""
    out = []
    for x in form:
        if isinstance(x, list):
            out += strings(x)
        elif isinstance(x, tuple) and x[0] == "str":
            out.append(x[1])
    return out


def load_known(path):
    known = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            kind, value = line.split(None, 1)
            known.setdefault(kind, set()).add(value)
    return known


def check_filter(f, known, where):
    bad = []
    if not isinstance(f, list) or not f:
        return ["%s: a filter that is not a form" % where]
    head = sym(f[0])
    if head not in known["filter"]:
        bad.append("%s: unknown filter %s" % (where, head or f[0]))
    for x in f[1:]:
        if isinstance(x, list):
            bad += check_filter(x, known, where)
    return bad


def lint(text, known):
    bad = []
    try:
        forms = parse(text)
    except ParseError as e:
        return ["does not parse: %s" % e]
    if len(forms) < 2 or [sym(x) for x in forms[0]] != ["version", "1"] \
            or [sym(x) for x in forms[1]] != ["deny", "default"]:
        bad.append("does not start with (version 1) (deny default)")
    exec_allowed_at = None
    denied_exec = set()
    for n, form in enumerate(forms):
        if not isinstance(form, list) or not form:
            bad.append("form %d: not a rule" % n)
            continue
        action = sym(form[0])
        if action == "version":
            continue
        if action not in ("allow", "deny"):
            bad.append("form %d: unknown action %s" % (n, action))
            continue
        ops = [sym(x) for x in form[1:] if sym(x) is not None]
        filters = [x for x in form[1:] if isinstance(x, list)]
        where = "(%s %s)" % (action, " ".join(ops))
        for op in ops:
            if op not in known["op"]:
                bad.append("%s: unknown operation %s" % (where, op))
        for f in filters:
            bad += check_filter(f, known, where)
        if action == "deny":
            if "process-exec" in ops:
                denied_exec |= set(strings(filters))
            continue
        for op in ops:
            if op in known["unfiltered"] and not filters:
                bad.append("unfiltered (allow %s)" % op)
        if "mach-lookup" in ops:
            for s in strings(filters):
                if s in known["never-service"]:
                    bad.append("allows the Mach service %s" % s)
        if any(op.startswith("file-write") for op in ops):
            for f in filters:
                if sym(f[0]) in ("subpath", "literal") and \
                        isinstance(f[1], tuple) and f[1][0] == "str" and \
                        f[1][1].rstrip("/") in \
                        {w.rstrip("/") for w in known["wide-write"]}:
                    bad.append("allows writing all of %s" % f[1][1])
        if "process-exec" in ops and not filters:
            exec_allowed_at = n
    if exec_allowed_at is not None:
        for helper in sorted(known["ls-helper"] - denied_exec):
            bad.append("allows process-exec of %s" % helper)
    return bad


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 64
    known = load_known(sys.argv[1])
    rc = 0
    for path in sys.argv[2:]:
        for finding in lint(open(path).read(), known):
            print("%s: %s" % (path, finding))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
