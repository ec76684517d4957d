#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The built-in actions through tools/call: read_file, write_file,
# list_files, search, exec, a command tool and run_check, and the path
# rules every workspace access obeys (no .., absolute paths, symlinks or
# hard links out of the workspace, no magic links, .git protected).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)

M="$T/tools.yaml"
cat >"$M" <<'EOF'
types:
  word: { type: string, maxLength: 64 }
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: sha256, size: integer }
    sideEffect: none
    timeoutMs: 2000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 2000
  - name: list_files
    input: { path: "workspace_relative_path?", recursive: "boolean?" }
    output: { files: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 2000
  - name: search
    input: { pattern: string, path: "workspace_relative_path?" }
    output: { matches: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 10000
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer, stdout: string, durationMs: integer, timedOut: boolean, truncated: boolean }
    sideEffect: sandbox_process
    timeoutMs: 10000
  - name: shell
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 10000
  - name: greet
    input: { name: word, count: integer }
    output: { exitCode: integer, stdout: string }
    command: ["echo", "hello", "{name}", "{count}"]
    sideEffect: sandbox_process
    timeoutMs: 10000
checks:
  pass: ["true"]
  fail: ["sh", "-c", "echo FAIL here; exit 3"]
  slow:
    argv: ["sh", "-c", "sleep 31.4159 & sleep 31.4159; echo never"]
    timeoutMs: 500
  second: ["sh", "-c", "sleep 1; echo slept"]
  loud: ["sh", "-c", "yes 'a line of output' | head -c 20000000; echo done >&2"]
EOF

# Outside the workspace: a secret file, a directory, the hard link source.
out="$T/outside"
mkdir -p "$out/dir"
echo "outside secret" >"$out/secret.txt"
echo "outside dir file" >"$out/dir/f.txt"
echo "original hostname copy" >"$out/hostname-copy"
ln -s "$out/secret.txt" "$ws/abs-link"
ln -s ../outside/secret.txt "$ws/rel-link"
ln -s chain2 "$ws/chain1"
ln -s chain3 "$ws/chain2"
ln -s "$out/secret.txt" "$ws/chain3"
ln -s /proc/self/root/etc/passwd "$ws/magic"
ln -s ../../../../../../../../proc/self/root/etc/passwd "$ws/magic-rel"
ln -s "$out/dir" "$ws/dirlink"
ln "$out/hostname-copy" "$ws/hostname-copy"
mkdir -p "$ws/.git/hooks"
echo "[core]" >"$ws/.git/config"
ln -s .git "$ws/gitlink"
ln -s gitlink "$ws/gitlink2"
ln -s .git/hooks "$ws/hookslink"
ln -s . "$ws/rootlink"
mkdir -p "$ws/sub"
ln -s ../.git "$ws/sub/up-git"
ln -s src/todo.sh "$ws/inner-link"

export ITEST_HOST_SECRET=hunter2-not-for-runners
mcp_start "$M" "$ws"

# --- read_file ----------------------------------------------------------------
mcp_call read_file '{"path":"src/todo.sh"}'
expect_ok_result "read_file reads a workspace file"
printf '%s' "$(jr .result.structuredContent.content)" >"$T/got"
printf '%s' "$(cat "$ws/src/todo.sh")" >"$T/want"
check "read_file content is the file's content" cmp -s "$T/got" "$T/want"
expect_eq "read_file sha256 is sha256sum of the file" "$(jr .result.structuredContent.sha256)" \
    "$(sha256sum <"$ws/src/todo.sh" | cut -d' ' -f1)"
expect_eq "read_file size is the file's size" "$(jr .result.structuredContent.size)" "$(stat -c %s "$ws/src/todo.sh")"

printf 'text\0with a NUL\n' >"$ws/nul.bin"
mcp_call read_file '{"path":"nul.bin"}'
expect_error_class "read_file refuses a file with a NUL byte (binary_file)" binary_file
printf '\xff\xd8\xff\xe0 jpeg-ish\n' >"$ws/img.jpg"
mcp_call read_file '{"path":"img.jpg"}'
expect_error_class "read_file refuses invalid UTF-8 (binary_file)" binary_file
head -c 1048577 /dev/zero | tr '\0' x >"$ws/big.txt"
mcp_call read_file '{"path":"big.txt"}'
expect_ok_result "read_file of a file over 1 MiB returns its head (not too_large)"
expect_eq "its sha256 is the whole file's" "$(jr .result.structuredContent.sha256)" \
    "$(sha256sum <"$ws/big.txt" | cut -d' ' -f1)"
expect_contains "its head ends with the marker" "$(jr .result.structuredContent.content)" \
    "takes no line range here"
rm -f "$ws/big.txt"
head -c 16777217 /dev/zero | tr '\0' x >"$ws/huge.txt"
mcp_call read_file '{"path":"huge.txt"}'
expect_error_class "read_file refuses a file over 16 MiB (too_large)" too_large
rm -f "$ws/huge.txt"
# Over the string type's 256 KiB: the head within the contract, marked.
yes 'a line of text' | head -c 300000 >"$ws/mid.txt"
mcp_call read_file '{"path":"mid.txt"}'
expect_ok_result "read_file of a 300 KB text file answers within its contract"
check "its content fits the string type" [ "$(jr '.result.structuredContent.content | length')" -le 262144 ]
expect_contains "and says what was cut" "$(jr .result.structuredContent.content)" "lines (" 
rm -f "$ws/mid.txt"
mcp_call read_file '{"path":"src"}'
expect_eq "read_file refuses a directory" "$(jr .result.isError)" true
mkfifo "$ws/fifo"
mcp_call read_file '{"path":"fifo"}' 10
expect_error_class "read_file of a FIFO is refused at once (path_refused: not a regular file), no hang" path_refused
rm -f "$ws/fifo"
mcp_call read_file '{"path":"inner-link"}'
expect_ok_result "read_file follows a symlink that stays in the workspace"

# --- Path escapes, for each of read_file, write_file and list_files -----------
# refused NAME TOOL ARGS: an error result whose class is a refusal.
refused() {
	mcp_call "$2" "$3"
	case "$(r_is_error):$(r_class)" in
	true:path_refused|true:invalid_arguments|true:denied) pass "$1" ;;
	*) fail "$1"; printf '  got: %.500s\n' "$R" ;;
	esac
}
for p in ../outside/secret.txt ../../../../etc/passwd src/../../outside/secret.txt \
    /etc/passwd "$out/secret.txt" abs-link rel-link chain1 magic magic-rel \
    dirlink/f.txt; do
	refused "read_file refuses $p" read_file "{\"path\":\"$p\"}"
	expect_not_contains "read_file of $p leaks nothing" "$R" "outside secret"
	expect_not_contains "read_file of $p leaks no passwd line" "$R" "root:x:0"
done
refused "read_file refuses a hard link to an outside file" read_file '{"path":"hostname-copy"}'
expect_not_contains "read_file of the hard link leaks nothing" "$R" "original hostname"

for p in ../outside/secret.txt /tmp/airlock-escape.txt "$out/secret.txt" abs-link rel-link \
    chain1 magic magic-rel dirlink/new.txt dirlink/f.txt hostname-copy; do
	refused "write_file refuses $p" write_file "{\"path\":\"$p\",\"content\":\"pwned\"}"
done
expect_eq "outside secret unchanged after the write attempts" "$(cat "$out/secret.txt")" "outside secret"
expect_eq "outside dir file unchanged" "$(cat "$out/dir/f.txt")" "outside dir file"
check "no file created through a directory symlink" test ! -e "$out/dir/new.txt"
check "no file created by an absolute path" test ! -e /tmp/airlock-escape.txt
expect_eq "hard-linked outside file unchanged (write refused)" "$(cat "$out/hostname-copy")" "original hostname copy"
expect_eq "hard link still has 2 links (not silently replaced)" "$(stat -c %h "$out/hostname-copy")" 2
check "the symlinks in the workspace are still symlinks" test -L "$ws/abs-link" -a -L "$ws/rel-link" -a -L "$ws/chain1" -a -L "$ws/magic"

for p in .. ../outside /etc "$out" dirlink abs-link; do
	refused "list_files refuses $p" list_files "{\"path\":\"$p\"}"
	expect_not_contains "list_files of $p leaks nothing" "$R" "f.txt"
done

# --- .git is protected ------------------------------------------------------
for p in .git/config .git/hooks/pre-commit .git/new ./.git/config gitlink/config gitlink/hooks/post-checkout \
    src/../.git/config .//.git/config gitlink2/config hookslink/pre-commit rootlink/.git/config \
    rootlink/gitlink/config sub/up-git/config sub/../.git/config; do
	refused "write_file into .git refused: $p" write_file "{\"path\":\"$p\",\"content\":\"#!/bin/sh\\necho pwned\\n\"}"
done
expect_eq ".git/config unchanged" "$(cat "$ws/.git/config")" "[core]"
check "no hook written in .git/hooks" test -z "$(ls -A "$ws/.git/hooks")"
check "nothing new in .git" test "$(ls -A "$ws/.git" | tr '\n' ' ')" = "config hooks "

# --- write_file: an atomic replace ---------------------------------------------
echo old >"$ws/atomic.txt"
exec {held}<"$ws/atomic.txt"
ino_before=$(stat -c %i "$ws/atomic.txt")
mcp_call write_file '{"path":"atomic.txt","content":"new content\n"}'
expect_ok_result "write_file replaces a file"
expect_eq "write_file wrote the exact content" "$(cat "$ws/atomic.txt")" "new content"
expect_eq "write_file reports sha256 of the content" "$(jr .result.structuredContent.sha256)" \
    "$(printf 'new content\n' | sha256sum | cut -d' ' -f1)"
check "write_file replaced the file by rename (new inode)" test "$(stat -c %i "$ws/atomic.txt")" != "$ino_before"
expect_eq "a reader of the old file still sees the old content" "$(cat <&$held)" old
exec {held}<&-
check "write_file left no temporary file behind" test "$(ls -A "$ws" | grep -c -v -E '^(README.md|src|tests|abs-link|rel-link|chain[123]|magic|magic-rel|dirlink|hostname-copy|\.git|gitlink|gitlink2|hookslink|rootlink|sub|inner-link|nul.bin|img.jpg|big.txt|atomic.txt)$')" = 0
mcp_call write_file '{"path":"newdir/sub/created.txt","content":"made\n"}'
# write_file does not create directories: refused with a clear class,
# nothing left behind.
expect_eq "write_file into a missing directory is an error" "$(jr .result.isError)" true
case "$(r_class)" in
write_failed|path_refused) pass "write_file into a missing directory is refused with a clear class" ;;
*) fail "write_file into a missing directory is refused with a clear class ($(r_class))" ;;
esac
check "a refused write_file leaves no directory behind" test ! -e "$ws/newdir"

# --- list_files: bounded and sorted -----------------------------------------------
mkdir "$ws/many"
(cd "$ws/many" && for i in $(seq 1 1200); do : >"f$i"; done)
mcp_call list_files '{}'
expect_ok_result "list_files lists the workspace root"
files=$(jr '.result.structuredContent.files[]')
expect_contains "list_files shows README.md" "$files" README.md
expect_contains "list_files marks directories with /" "$files" "src/"
expect_not_contains "list_files hides .git" "$files" ".git"
check "list_files output is sorted" bash -c 'printf "%s\n" "$1" | LC_ALL=C sort -c' _ "$files"
mcp_call list_files '{"path":"many"}'
n=$(jr '.result.structuredContent.files | length')
expect_eq "list_files of 1200 entries is truncated" "$(jr .result.structuredContent.truncated)" true
check "list_files returns at most 1000 entries ($n)" test "$n" -le 1000 -a "$n" -gt 0
check "list_files truncated output is sorted" bash -c 'printf "%s\n" "$1" | LC_ALL=C sort -c' _ "$(jr '.result.structuredContent.files[]')"
mcp_call list_files '{"recursive":true}'
expect_not_contains "list_files recursive does not descend a symlink out" "$R" "dirlink/f.txt"
expect_not_contains "list_files recursive does not list .git" "$R" ".git/config"
mcp_call list_files '{"path":"src","recursive":true}'
expect_eq "list_files of a subdirectory" "$(jr -c '.result.structuredContent.files')" '["src/todo.sh"]'
# A name that is not UTF-8 is listed, with U+FFFD (JSON cannot hold the
# byte): it and all beneath it went unlisted, silently.
mkdir -p "$ws/odd/$(printf 'x\377')"
: >"$ws/odd/$(printf 'x\377')/inner.txt"
: >"$ws/odd/$(printf 'y\376z')"
mcp_call list_files '{"path":"odd","recursive":true}'
expect_eq "list_files shows names that are not UTF-8, and what is beneath them" \
    "$(jr -c '.result.structuredContent.files')" $'["odd/x\357\277\275/","odd/x\357\277\275/inner.txt","odd/y\357\277\275z"]'
rm -rf "$ws/odd"

# --- search ---------------------------------------------------------------------
echo "todo_complete in git" >"$ws/.git/grepme"
mcp_call search '{"pattern":"todo_complete"}'
expect_ok_result "search runs"
m=$(jr '.result.structuredContent.matches[]')
expect_contains "search finds the text with file and line" "$m" "src/todo.sh:15:todo_complete() {"
expect_not_contains "search does not look into .git" "$m" "in git"
mcp_call search '{"pattern":"no such text anywhere 12345"}'
expect_eq "search with no match is an empty list" "$(jr -c '[.result.isError, .result.structuredContent.matches]')" '[false,[]]'
refused "search refuses a path outside" search '{"pattern":"x","path":"../outside"}'
refused "search refuses a symlink out as its path" search '{"pattern":"secret","path":"dirlink"}'
expect_not_contains "search through a directory symlink leaks nothing" "$R" "outside dir file"
mcp_call search '{"pattern":"secret","path":"abs-link"}'
expect_not_contains "search through a symlink out leaks nothing" "$R" "outside secret"

# --- exec and command tools ---------------------------------------------------------
mcp_call shell '{"command":"echo $((6 * 7)); echo err >&2; exit 4"}'
expect_eq "exec runs sh -c: exit status, stdout and stderr" \
    "$(jr -c '[.result.structuredContent.exitCode, .result.structuredContent.stdout, .result.structuredContent.stderr]')" \
    '[4,"42\n","err\n"]'
mcp_call shell '{"command":"cat README.md | head -n 1; pwd"}'
expect_contains "exec runs in the workspace" "$(jr .result.structuredContent.stdout)" "$(head -n 1 "$ws/README.md")"
mcp_call shell '{"command":"echo built > built.txt && cat built.txt"}'
expect_eq "exec can create a file in the workspace (workspace: direct)" \
    "$(jr -c '[.result.structuredContent.exitCode, .result.structuredContent.stderr]')" '[0,""]'
check "the file exec created is in the workspace" test -f "$ws/built.txt"
cfg_before=$(cat "$ws/.git/config")
mcp_call shell '{"command":"echo pwned >> .git/config; echo pwned > .git/hooks/pre-commit"}'
check "exec cannot write .git (exit status)" test "$(jr .result.structuredContent.exitCode)" != 0
expect_eq "exec did not change .git/config" "$(cat "$ws/.git/config")" "$cfg_before"
check "exec wrote no hook" test ! -e "$ws/.git/hooks/pre-commit"
mcp_call shell "{\"command\":\"echo pwned > $out/from-exec.txt; cat $out/secret.txt\"}"
check "exec cannot write outside the workspace" test ! -e "$out/from-exec.txt"
expect_not_contains "exec cannot read outside the workspace" "$(jr .result.structuredContent.stdout)" "outside secret"
mcp_call shell '{"command":"env; id -u"}'
expect_not_contains "a runner does not inherit airlock's environment" "$(jr .result.structuredContent.stdout)" hunter2
expect_not_contains "a runner does not see AIRLOCK_HOME" "$(jr .result.structuredContent.stdout)" AIRLOCK_HOME
expect_not_contains "a runner does not run as root" "$(jr .result.structuredContent.stdout | tail -n 1)" "0"
mcp_call greet '{"name":"world","count":3}'
expect_eq "command tool fills argv from typed arguments" "$(jr .result.structuredContent.stdout)" "hello world 3"
mcp_call greet '{"name":"a;b $(id) `id`","count":1}'
expect_eq "command tool passes a value as one literal argument" "$(jr .result.structuredContent.stdout)" 'hello a;b $(id) `id` 1'
mcp_call greet '{"name":"-n","count":1}'
expect_error_class "command tool refuses a value starting with -" invalid_arguments
mcp_call greet '{"name":"--help","count":1}'
expect_error_class "command tool refuses a value starting with --" invalid_arguments
mcp_call greet '{"name":"world","count":-1}'
expect_error_class "command tool refuses a negative integer (would be an option)" invalid_arguments
mcp_call greet '{"name":"world","count":"3"}'
expect_error_class "command tool refuses an argument of the wrong type" invalid_arguments
mcp_call greet '{"name":"world","count":3,"extra":"x"}'
expect_error_class "command tool refuses an unknown argument" invalid_arguments

# --- run_check ------------------------------------------------------------------------
mcp_call run_check '{"checkId":"pass"}'
expect_eq "run_check pass: exit 0, not an error" "$(jr -c '[.result.isError, .result.structuredContent.exitCode]')" '[false,0]'
mcp_call run_check '{"checkId":"fail"}'
expect_eq "run_check fail: exit 3 reported" "$(jr -c '[.result.isError, .result.structuredContent.exitCode]')" '[false,3]'
expect_contains "run_check fail: output reported" "$(jr .result.structuredContent.stdout)" "FAIL here"
mcp_call run_check '{"checkId":"loud"}'
expect_ok_result "a check with 20 MB of output completes"
expect_eq "its output is capped and marked truncated" "$(jr -c '[.result.structuredContent.exitCode, (.result.structuredContent.stdout | length <= 65536), .result.structuredContent.truncated]')" '[0,true,true]'
mcp_call run_check '{"checkId":"rm -rf /"}'
expect_error_class "run_check refuses a check not in the manifest" invalid_arguments
t0=$(date +%s%N)
mcp_call run_check '{"checkId":"slow"}' 20
t1=$(date +%s%N)
expect_error_class "run_check past its timeoutMs ends with errorClass timeout" timeout
ms=$(( (t1 - t0) / 1000000 ))
# The check's limit is 500 ms (768 ms from call to answer here); one
# that missed it would run to the tool's 10 s, or its command's 31 s.
# The bound leaves room for an ASan build on a loaded machine.
check "run_check timeout came back within 8 s (${ms} ms)" test "$ms" -lt 8000
expect_eq "run_check timeout is retryable" "$(jr .result.structuredContent.retryable)" true
# (Polled: a loaded machine reaps the tree late; a survivor runs 31 s.)
check "the timed-out check's process tree is gone (no sleep 31.4159)" wait_for bash -c '! pgrep -f "sleep 31[.]4159" >/dev/null'
ps -eo pid,stat,args | grep '31[.]4159' | sed 's/^/  # survivor: /'
mcp_rpc ping '{}'
expect_eq "broker still serves after a timeout" "$(jr '.result | tostring')" '{}'

# maxParallelProcesses (default manifest budget: none set here) is not
# hit; two calls in flight at once are both answered, each by its id.
mcp_send '{"jsonrpc":"2.0","id":"par-1","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"second"}}}'
mcp_send '{"jsonrpc":"2.0","id":"par-2","method":"tools/call","params":{"name":"read_file","arguments":{"path":"README.md"}}}'
mcp_wait_id par-2 10
expect_ok_result "a quick call is answered while a slow one runs"
mcp_wait_id par-1 20
expect_eq "the slow call's result follows" "$(jr .result.structuredContent.stdout)" "slept"

mcp_stop
expect_eq "serve exits 0" "$?" 0
sess=$(newest_session)
n=$(grep -c '"runner_start"' "$sess/audit.jsonl")
check "runner starts are audited ($n)" test "$n" -ge 8
check "no zombie left by the runners" bash -c '! ps -eo stat,args | grep -E "^Z" | grep -q -E "sleep|sh -c"'

"$AIRLOCK" audit verify "$sess/audit.jsonl" >"$T/verify.out" 2>&1
expect_eq "the session's audit log verifies" "$?" 0
n=$(grep -c '"decision"' "$sess/audit.jsonl")
check "every tools/call has an audited decision ($n)" test "$n" -ge 60

# At end of input, calls in flight still get their results.
R=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"second"}}}' |
    timeout 20 "$AIRLOCK" serve --manifest "$M" --workspace "$ws" 2>>"$T/serve.err" | jq -sc '[.[1].id, .[1].result.structuredContent.stdout]')
expect_eq "serve finishes a call in flight after stdin EOF" "$R" '[2,"slept\n"]'

# maxParallelProcesses: a second process beyond the limit is "busy".
sed 's/^checks:$/runBudget:\n  maxParallelProcesses: 1\nchecks:/' "$M" >"$T/par.yaml"
mcp_start "$T/par.yaml" "$ws"
mcp_send '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"second"}}}'
mcp_send '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"pass"}}}'
mcp_wait_id b 10
expect_error_class "a process beyond maxParallelProcesses is refused: busy" busy
expect_eq "busy is retryable" "$(jr .result.structuredContent.retryable)" true
mcp_wait_id a 20
expect_ok_result "the running process finishes"
mcp_call run_check '{"checkId":"pass"}'
expect_ok_result "after it ends, a new process may start"
mcp_stop

finish
