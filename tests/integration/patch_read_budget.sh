#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# apply_patch reads the files it changes into the privileged broker, on
# its event loop, before the base check; each file may be 4 MiB and a
# patch may name 256.  Links to one directory make every name the same
# file: a patch of 14 KiB naming l000/big.txt ... l255/big.txt, with
# each lNNN a link to the directory holding a 4 MiB file, held 1 GiB of
# the broker's memory (VmHWM 1028 MiB) and kept a ping behind it
# waiting 10 s, only to be refused base_mismatch; with its base right,
# 4 GiB and 127 s.  Now a patch reads at most 16 MiB of files in all,
# and the file that would go over is refused (too_large) unread.  Nor
# is what the applier would refuse built: four names of a 4 MiB file
# of control characters, its base right, became 96 MiB of JSON for the
# applier (6 bytes a character) that it refused at 64 MiB, the broker
# at 226 MiB meanwhile; now too_large before the message is built.
# The agent sends, from inside its sandbox through "airlock connect":
# a patch of four such files (16 MiB, read: base_mismatch), three of
# 256 pipelined, a ping, the control characters, and a patch of one
# file with its base right.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
command -v python3 >/dev/null || { echo "# skip: no python3"; exit 77; }

# A 4 MiB text file (WRITE_MAX, the most a patch may change) and 256
# links to its directory.
mkdir "$ws/d"
{
	echo a
	head -c 4194302 /dev/zero | tr '\0' x | fold -w 99
} | head -c 4194304 >"$ws/d/big.txt"
for i in $(seq -w 0 255); do ln -s d "$ws/l$i"; done
# And one of control characters (UTF-8 text, 6 bytes each in JSON).
mkdir "$ws/c"
{
	echo a
	head -c 4194302 /dev/zero | tr '\0' '\001' | fold -w 99
} | head -c 4194304 >"$ws/c/ctl.txt"
for i in 0 1 2 3; do ln -s c "$ws/m$i"; done

cat >"$T/m.yaml" <<'YAML'
tools:
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 60000
YAML

{
	agent_py_head
	cat <<EOF
def patch(i, paths, base):
    text = "".join("--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-a\n+b\n" % (q, q)
        for q in paths)
    call(i, "apply_patch", {"patch": text, "expectedBaseSha": base})
links = ["l%03d/big.txt" % i for i in range(256)]
patch(1, links[:4], "0" * 64)
for i in (2, 3, 4):
    patch(i, links, "0" * 64)
send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
sha = lambda f: hashlib.sha256(open(f, "rb").read()).hexdigest()
ctl = ["m%d/ctl.txt" % i for i in range(4)]
patch(7, ctl, hashlib.sha256(b"".join(q.encode() + b"\\0" +
    sha("c/ctl.txt").encode() + b"\\n" for q in ctl)).hexdigest())
patch(6, ["d/big.txt"], sha("d/big.txt"))
got = {}
while len(got) < 7:
    r = recv()
    if r is None:
        break
    got[r["id"]] = r
for i in sorted(got):
    print("REPLY %d %s" % (i, json.dumps(got[i])), flush=True)
print("DONE", flush=True)
while not os.path.exists("$ws/measured"):
    time.sleep(0.05)
p.stdin.close()
p.wait()
EOF
} >"$T/agent.py"
chmod 755 "$T/agent.py"

agent_run_start "$T/m.yaml" "$ws" "$T/agent.py"
# The broker and its lander, which does a patch's work off the loop
# (broker/patchland.h): their page faults and peak memory together.
minflt() {
	awk '{ sub(/.*\) /, ""); n += $8 } END { print n }' \
	    "/proc/$pid/stat" "/proc/$lander/stat"
}
hwm() {
	awk '/^VmHWM:/ { n += $2 } END { print n }' \
	    "/proc/$pid/status" "/proc/$lander/status"
}
reply() { R=$(sed -n "s/^REPLY $1 //p" "$T/out"); }
tool_class() { jr '.result.content[0].text | fromjson | .errorClass'; }
tool_text() { jr '.result.content[0].text | fromjson | .message'; }

up_to READY 20
check "the agent is connected" grep -q READY "$T/out"
lander=$(pgrep -P "$pid" -x airlock-lander)
check "the broker has a lander" test -n "$lander"
before=$(hwm)
flt0=$(minflt)
touch "$ws/started"
up_to DONE 300
check "every call was answered" grep -q DONE "$T/out"
after=$(hwm)
flt1=$(minflt)
touch "$ws/measured"
wait "$pid"
expect_eq "the session ends" "$?" 0
echo "# the broker's and lander's peak resident memory: $((before / 1024)) MiB, then $((after / 1024)) MiB"
check "their peaks stay under $((128 * mem_slack)) MiB (was $((after / 1024)) MiB)" \
    test "$after" -lt $((131072 * mem_slack))
# The patch applier's reader may take 64 MiB, of which a patch's reply
# uses little; its buffer was wiped whole when the applier was done, and
# every apply_patch touched 16k pages of the broker on its loop
# (129,000 page faults for these calls, a ping behind a patch of one
# 4 MiB file waiting 230-300 ms).  Only what was written is wiped.
echo "# the broker's and lander's page faults over the calls: $((flt1 - flt0))"
check "they take fewer than $((64000 * mem_slack)) page faults for the calls (took $((flt1 - flt0)))" \
    test "$((flt1 - flt0))" -lt $((64000 * mem_slack))

reply 1
expect_eq "a patch of four 4 MiB files (16 MiB) is read and checked" \
    "$(tool_class)" base_mismatch
for i in 2 3 4; do
	reply "$i"
	expect_eq "patch $i of 256 links to one 4 MiB file: too_large" \
	    "$(tool_class)" too_large
	expect_eq "patch $i is refused at the fifth file, unread" \
	    "$(tool_text)" "patch refused: the files it changes hold more than 16777216 bytes in all (l004/big.txt goes over); nothing was read further: split the patch"
done
reply 5
expect_eq "the ping behind them is answered" "$(jr '.result | length')" 0
reply 7
expect_eq "16 MiB of control characters, its base right: too_large" \
    "$(tool_class)" too_large
expect_eq "they are not sent to the applier as 96 MiB of JSON" \
    "$(tool_text)" "patch refused: the files it changes are more than 67108864 bytes as the applier reads them (JSON, a control character 6 bytes)"
reply 6
expect_eq "a patch of one 4 MiB file applies" \
    "$(jr '.result.isError // false')" false
expect_eq "it changed the file's first line" "$(head -n 1 "$ws/d/big.txt")" b
rm -f "$ws/started" "$ws/measured"
finish
