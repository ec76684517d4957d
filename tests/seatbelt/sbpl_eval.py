#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
"""Decides file operations against an airlock Seatbelt (SBPL) profile.

usage: sbpl_eval.py [--fold] PROFILE [NAME=VALUE...] < QUERIES

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

--fold judges as on a case-insensitive APFS volume (macOS's default),
where a name is compared in its canonical caseless form (case-folded NFD,
Unicode D145: xnu's utf8_normalizeOptCaseFold(), bsd/sys/unicode.h; full
foldings, as linux-apfs-rw's unicode.c and apfs-fuse's Unicode.cpp do):
".GIT", ".Git" and ".git" are one file, as are ".ssh" and ".\u017fsh"
(LONG S), "hooks" and "hoo\u212aS" (KELVIN SIGN), "config" and
"con\ufb01g" (the fi ligature), "zo\u00eb" and "zoe\u0308" (NFC and
NFD), "ZO\u00cb" and "zo\u00eb"; and as on an HFS+ volume, which leaves
some code points out of names it compares (TN1150): ".g\u200cit" is
".git" there.  Which spelling Seatbelt matches is not
documented: it builds the path from the name cache, whose names are those
the lookups used, and a file being made has the name the caller gave.  So
each path of a query stands for every spelling of it (spellings()), and
the query is allowed if one spelling is: the agent picks the one that
gets through, and the line says which.  Literals and regexes are matched
as bytes (UTF-8): a bracket expression takes one byte, not one character.
"""
import os
import re
import sys
import unicodedata

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
        return re.search(value(f[1], params).encode(),
                         path.encode()) is not None
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


# The code points HFS+ leaves out when it compares names (TN1150, "Case-
# Insensitive String Comparison Algorithm": its lower-case table maps
# them to 0, ignored): the list git's utf8.c next_hfs_char() skips, the
# fix for CVE-2014-9390, where ".g\u200cit" was ".git" on a Mac.
HFS_IGNORABLE = "".join(chr(c) for c in list(range(0x200c, 0x2010)) +
                        list(range(0x202a, 0x202f)) +
                        list(range(0x206a, 0x2070)) + [0xfeff])


def caseless(s):
    """The canonical caseless form an APFS volume compares (D145), of
    the name as HFS+ compares it too (its ignorable code points left
    out): one equivalence for a volume of either kind."""
    s = "".join(c for c in s if c not in HFS_IGNORABLE)
    return unicodedata.normalize(
        "NFD", unicodedata.normalize("NFD", s).casefold())


# What case-folded NFD makes of a non-ASCII character that it turns into
# ASCII (every one, Unicode 14: the single letters, the ligatures and the
# two canonical singletons).
OTHER_SPELLINGS = {"k": ["\u212a"], "s": ["\u017f"],
                   "ss": ["\u00df", "\u1e9e"], "ff": ["\ufb00"],
                   "fi": ["\ufb01"], "fl": ["\ufb02"], "ffi": ["\ufb03"],
                   "ffl": ["\ufb04"], "st": ["\ufb05", "\ufb06"],
                   ";": ["\u037e"], "`": ["\u1fef"]}


def spellings(path):
    """|path| and other names an APFS or HFS+ volume takes for it: the
    whole path in upper, lower and swapped case, in NFC and in NFD, with
    an ignorable code point of HFS+ before each character beneath each
    directory, then
    each character (or run a ligature stands for) changed alone, one
    spelling per change: a rule built character by character that misses
    one misses it here."""
    out = [path, path.upper(), path.lower(), path.swapcase()]
    for form in ("NFC", "NFD"):
        q = unicodedata.normalize(form, path)
        out += [q, q.upper(), q.lower()]
    for j, c in enumerate(path):
        # Beneath each directory (the rest of the rules keep a root's
        # own spelling), before each character.
        if c == "/":
            out.append(path[:j + 1] + "".join(
                HFS_IGNORABLE[i % len(HFS_IGNORABLE)] + d
                for i, d in enumerate(path[j + 1:])))
    low = path.lower()
    for i, c in enumerate(path):
        if c.isalpha():
            out.append(path[:i] + c.swapcase() + path[i + 1:])
        if not c.isascii():
            # Alone in the other form; one that folds to ASCII as that.
            for form in ("NFC", "NFD"):
                out.append(path[:i] + unicodedata.normalize(form, c) +
                           path[i + 1:])
            if caseless(c).isascii():
                out.append(path[:i] + caseless(c) + path[i + 1:])
        for seq, alts in OTHER_SPELLINGS.items():
            if low.startswith(seq, i):
                for a in alts:
                    out.append(path[:i] + a + path[i + len(seq):])
    seen, res = set(), []
    for p in out:
        if p not in seen and caseless(p) == caseless(path):
            seen.add(p)
            res.append(p)
    return res


def judge(forms, q, params, fold):
    """The verdict on query |q| and the spelling that had it."""
    names = spellings if fold else (lambda p: [p])
    if q[0] == "rename":
        # The two checks are independent: each name in its best spelling.
        got = []
        for op, p in (("file-write-unlink", q[1]),
                      ("file-write-create", q[2])):
            ok = [a for a in names(p)
                  if decide(forms, op, a, "REGULAR-FILE", params) == "allow"]
            if not ok:
                return "deny", q[1:3]
            got.append(ok[0])
        return "allow", got
    vtype = q[2] if len(q) > 2 else "REGULAR-FILE"
    for a in names(q[1]):
        if decide(forms, q[0], a, vtype, params) == "allow":
            return "allow", [a]
    return "deny", [q[1]]


def main():
    args = sys.argv[1:]
    fold = bool(args) and args[0] == "--fold"
    if fold:
        args = args[1:]
    if not args:
        sys.stderr.write(__doc__)
        return 64
    forms = parse(open(args[0], encoding="utf-8").read())
    params = dict(a.split("=", 1) for a in args[1:])
    for line in sys.stdin:
        q = line.split()
        if not q:
            continue
        v, names = judge(forms, q, params, fold)
        shown = " ".join(q)
        if fold and v == "allow" and \
                names != q[1:3 if q[0] == "rename" else 2]:
            shown += "  (as %s)" % ascii(" ".join(names))
        print("%s %s" % (v, shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
