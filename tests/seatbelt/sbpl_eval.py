#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""Decides file operations against an airlock Seatbelt (SBPL) profile.

usage: sbpl_eval.py PROFILE [NAME=VALUE...] < QUERIES

A model of how Seatbelt judges a path, for the tests (no macOS here):
the last rule whose operation and filters match decides, else
(deny default).  An operation "X*" covers every operation starting with
X; a rule's filters match if any does; require-all if all do; literal is
the exact path, subpath the path and beneath, regex a search of the
path (the profile anchors its own); vnode-type the query's type (a
regular file unless given).  (param "NAME") takes NAME=VALUE from the
command line.  A filter on anything but a path never matches a path.

Each query line is "OPERATION PATH [VNODE-TYPE]"; "rename FROM TO" is
the two checks Seatbelt makes of rename(2): file-write-unlink of FROM and
file-write-create of TO.  Each prints "allow" or "deny" and the query.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lint import parse, sym  # noqa: E402


def value(x, params):
    if isinstance(x, tuple) and x[0] in ("str", "re"):
        return x[1]
    if isinstance(x, list) and x and sym(x[0]) == "param":
        return params[value(x[1], params)]
    if isinstance(x, list) and x and sym(x[0]) == "string-append":
        return "".join(value(y, params) for y in x[1:])
    raise ValueError("not a string: %r" % (x,))


def matches(f, path, vtype, params):
    head = sym(f[0])
    if head == "require-all":
        return all(matches(g, path, vtype, params) for g in f[1:])
    if head == "require-any":
        return any(matches(g, path, vtype, params) for g in f[1:])
    if head == "literal":
        return path == value(f[1], params)
    if head == "subpath":
        p = value(f[1], params).rstrip("/")
        return path == p or path.startswith(p + "/") or p == ""
    if head == "regex":
        return re.search(value(f[1], params), path) is not None
    if head == "vnode-type":
        return sym(f[1]) == vtype
    return False


def op_covers(rule_op, op):
    if rule_op == "default":
        return True
    if rule_op.endswith("*"):
        return op.startswith(rule_op[:-1])
    return rule_op == op


def decide(forms, op, path, vtype, params):
    verdict = "deny"
    for form in forms:
        if not isinstance(form, list) or not form:
            continue
        action = sym(form[0])
        if action not in ("allow", "deny"):
            continue
        ops = [sym(x) for x in form[1:] if sym(x) is not None]
        filters = [x for x in form[1:] if isinstance(x, list)]
        if not any(op_covers(o, op) for o in ops):
            continue
        if filters and not any(matches(f, path, vtype, params)
                               for f in filters):
            continue
        verdict = action
    return verdict


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 64
    forms = parse(open(sys.argv[1]).read())
    params = dict(a.split("=", 1) for a in sys.argv[2:])
    for line in sys.stdin:
        q = line.split()
        if not q:
            continue
        if q[0] == "rename":
            v = "allow" if decide(forms, "file-write-unlink", q[1],
                                  "REGULAR-FILE", params) == "allow" and \
                decide(forms, "file-write-create", q[2], "REGULAR-FILE",
                       params) == "allow" else "deny"
        else:
            v = decide(forms, q[0], q[1],
                       q[2] if len(q) > 2 else "REGULAR-FILE", params)
        print("%s %s" % (v, " ".join(q)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
