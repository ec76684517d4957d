# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The head of a Python agent that speaks MCP over fd 3 inside
# "airlock run" (its working directory: the script's, the workspace):
# say() prints "AGENT ..." for the test to read, send() writes a
# request, line() reads the next message (None at the end).  A test
# writes this file, then its agent's own steps, into one script.
import ctypes, json, mmap, os, select, sys, time
os.chdir(os.path.dirname(os.path.abspath(sys.argv[0])))
rd = os.fdopen(3, "rb", buffering=0)
wr = os.fdopen(os.dup(3), "wb", buffering=0)
buf = b""
def say(s):
    print("AGENT " + s, flush=True)
def send(o):
    wr.write((json.dumps(o) + "\n").encode())
def line():
    global buf
    while b"\n" not in buf:
        d = rd.read(65536)
        if not d:
            return None
        buf += d
    l, buf = buf.split(b"\n", 1)
    return json.loads(l)
