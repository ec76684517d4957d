#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What stands between a copy-on-write session and the checkout, each shown
# alone in one short session (cow_session.sh covers the whole flow): the
# write policy refuses a nested .git and nothing lands (a refused name
# padded to the terminal's edge forges no line); commit --digest
# refuses a change set other than the one reviewed; a manifest changed
# since the session began refuses the commit; with the manifest put back
# and the reviewed digest, the same change set lands; a dependency file
# over maxAddedDependencies lands nothing, also written through a link
# of the checkout to it; a resumed session goes on
# with the run budget its earlier runs spent (a stopped one, or one whose
# last log does not verify, is not resumed at all); a symlink that leads
# into .git, a git directory or a hooks directory lands nothing, and no
# hook planted through one runs at git commit.  Fast on purpose:
# `make mutants` maps the commit's guards here.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
A=$(realpath "$AIRLOCK")

cat >"$T/m.yaml" <<'EOF'
tools:
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
agent:
  workspace: cow
EOF
cp "$T/m.yaml" "$T/m.orig"

run_agent() {	# BODY [airlock run options...]
	{ echo '#!/bin/sh'; printf '%s\n' "$1"; } >"$T/agent.sh"
	shift
	chmod 755 "$T/agent.sh"
	timeout 60 "$A" run --manifest "$T/m.yaml" --workspace "$ws" "$@" \
	    -- "$T/agent.sh" >"$T/out" 2>"$T/err"
	RC=$?
	S=$(sed -n 's/.*changes stay in session \([^ ]*\) until.*/\1/p' "$T/err" | tail -1)
}

# The write policy: a nested .git is refused with its rule, nothing lands.
run_agent 'mkdir -p src/.git && echo "[core]" >src/.git/config && echo ok >src/ok.txt'
check "a session id is printed" test -n "$S"
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit of a nested .git refuses (exit 1)" "$rc" 1
expect_contains "and names the entry and its rule" "$(cat "$T/cerr")" "refused: src/.git/config: git"
check "nothing landed" test ! -e "$ws/src/ok.txt" -a ! -e "$ws/src/.git"
"$A" discard "$S" 2>/dev/null

# A refused name padded to the edge of an 80-column terminal: its wrap
# began a row with the rest, a line of airlock's to the eye.  Each
# refused entry is folded to the width, each row after its first marked
# ">> ".
pad=$(printf '%62s' '' | tr ' ' x)
run_agent "mkdir -p src/.git && echo x >'src/.git/${pad}airlock commit: session applied'"
COLUMNS=80 "$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit of a padded name beneath a nested .git refuses (exit 1)" "$rc" 1
expect_eq "on that terminal, no row of the refusal reads as airlock's" \
    "$(fold -w 80 "$T/cerr" | grep -c '^airlock commit: session applied')" 0
expect_contains "the name goes on on a row marked as the refusal's" "$(cat "$T/cerr")" ">> airlock commit: session applied: git"
"$A" discard "$S" 2>/dev/null

# A clean change set, reviewed.
run_agent 'echo ok >src/ok.txt' --resume "$S"
"$A" diff "$S" >/dev/null 2>"$T/derr"
sha=$(sed -n 's/.*diff sha256 \([0-9a-f]*\).*/\1/p' "$T/derr")
check "diff prints the change set's sha256" test -n "$sha"
"$A" commit --digest "$(printf '%064d' 0)" "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit with another change set's digest refuses" "$rc" 1
expect_contains "and says the digests differ" "$(cat "$T/cerr")" "$sha"
check "nothing landed" test ! -e "$ws/src/ok.txt"

# The manifest changed since the session began.
echo "# changed" >>"$T/m.yaml"
"$A" commit --digest "$sha" "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit under a changed manifest refuses" "$rc" 1
expect_contains "and says the manifest changed" "$(cat "$T/cerr")" "changed since session $S began"
check "nothing landed" test ! -e "$ws/src/ok.txt"

# Put back: the reviewed change set lands.
cp "$T/m.orig" "$T/m.yaml"
"$A" commit --digest "$sha" "$S" 2>"$T/cerr"; rc=$?
expect_eq "with the manifest put back, the reviewed commit succeeds" "$rc" 0
expect_eq "and the file landed" "$(cat "$ws/src/ok.txt" 2>/dev/null)" ok

# The run budget counts a commit as the broker counts writes: a session
# that adds a dependency file over maxAddedDependencies lands nothing.
{ cat "$T/m.orig"; printf 'dependencyFiles: [package.json]\nrunBudget:\n  maxAddedDependencies: 0\n'; } >"$T/m.yaml"
run_agent 'echo "{}" >package.json && echo two >src/two.txt'
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit over maxAddedDependencies refuses (exit 1)" "$rc" 1
expect_contains "and names the budget" "$(cat "$T/cerr")" "over runBudget.maxAddedDependencies"
check "nothing landed" test ! -e "$ws/package.json" -a ! -e "$ws/src/two.txt"
"$A" discard "$S" 2>/dev/null
# Counted by the file it lands on, as the broker counts: with the
# checkout's requirements.txt a link to requirements/base.txt (a common
# layout), a session that appended to requirements/base.txt was counted
# no dependency, and landed with maxAddedDependencies 0.
mkdir -p "$ws/requirements"
echo "requests==2.0" >"$ws/requirements/base.txt"
ln -s requirements/base.txt "$ws/requirements.txt"
{ cat "$T/m.orig"; printf 'dependencyFiles: [requirements.txt]\nrunBudget:\n  maxAddedDependencies: 0\n'; } >"$T/m.yaml"
run_agent 'echo evilpkg==6.6.6 >>requirements/base.txt'
"$A" commit "$S" 2>"$T/cerr"; rc=$?
expect_eq "commit through the dependency file's link refuses (exit 1)" "$rc" 1
expect_contains "and names the budget" "$(cat "$T/cerr")" "over runBudget.maxAddedDependencies"
expect_eq "the dependency file unchanged" "$(cat "$ws/requirements.txt")" "requests==2.0"
"$A" discard "$S" 2>/dev/null
rm -rf "${ws:?}/requirements" "$ws/requirements.txt"

# The run budget is the session's, not each run's: --resume carries on
# what the earlier runs spent.  Before, every resume began with none
# spent, and a loop that resumed a stopped session went on for ever.
{ cat "$T/m.orig"; printf 'runBudget:\n  maxModelSteps: 3\n'; } >"$T/m.yaml"
wf() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"src/%s","content":"x"}}}' "$1" "$2"; }
run_agent "$(connect_calls "$(wf 2 s1)" "$(wf 3 s2)")"
CS=$S
up="$AIRLOCK_HOME/sessions/$CS/cow/upper"
check "two steps in the first run" test -e "$up/src/s1" -a -e "$up/src/s2"
run_agent "$(connect_calls "$(wf 2 s3)" "$(wf 3 s4)")" --resume "$CS"
expect_eq "the resumed run stops at the session's third step (exit 75)" "$RC" 75
check "its first call was the third step" test -e "$up/src/s3"
check "its second was over maxModelSteps and wrote nothing" test ! -e "$up/src/s4"
expect_contains "the broker said which budget" "$(cat "$T/out")" "maxModelSteps"
last=$(cat "$AIRLOCK_HOME/sessions/$CS/cow/last_run")
cp "$AIRLOCK_HOME/sessions/$last/audit.jsonl" "$T/last.jsonl"
sed -i 's/"steps":3/"steps":0/' "$AIRLOCK_HOME/sessions/$last/audit.jsonl"
run_agent 'echo RAN >src/ran' --resume "$CS"
expect_eq "a resume whose last log was edited refuses (exit 64)" "$RC" 64
expect_contains "and says the log does not verify" "$(cat "$T/err")" "does not verify"
cp "$T/last.jsonl" "$AIRLOCK_HOME/sessions/$last/audit.jsonl"
run_agent 'echo RAN >src/ran' --resume "$CS"
expect_eq "a stopped session is not resumed (exit 75)" "$RC" 75
expect_contains "and the refusal names the budget" "$(cat "$T/err")" "has spent its run budget (runBudget.maxModelSteps"
check "its agent never ran" test ! -e "$up/src/ran"

# An idempotency key is the session's too: a retry in a resumed run with
# a key an earlier run used would repeat the call's effect (its result
# is not kept), so it is refused; a new key runs.
sed '/^agent:/,$d' "$T/m.orig" >"$T/m.yaml"
cat >>"$T/m.yaml" <<'EOF'
  - name: run_check
    input: { checkId: approved_check, idempotencyKey: string }
    output: { exitCode: integer, durationMs: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
checks:
  ok: ["true"]
agent:
  workspace: cow
EOF
rc_call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run_check","arguments":{"checkId":"ok","idempotencyKey":"%s"}}}' "$1" "$2"; }
run_agent "$(connect_calls "$(rc_call 2 k1)")"
expect_contains "a check with key k1 runs" "$(cat "$T/out")" '"exitCode":0'
run_agent "$(connect_calls "$(rc_call 2 k1)" "$(rc_call 3 k2)")" --resume "$S"
expect_contains "k1 again after a resume is refused" "$(cat "$T/out")" \
    'used in an earlier run of this session'
expect_eq "... and k2 runs" "$(grep -c '"exitCode":0' "$T/out")" 1

# A symlink that leads into a repository's metadata or a hooks directory
# lands nothing: airlock writes nothing through it, but the person's
# tools do, and a build that wrote out/pre-commit with out -> .githooks
# (core.hooksPath) planted a hook that ran at the next git commit.  Read from the link's
# own directory, through the links on the way (the session's, lk ->
# fixtures, and the checkout's, vend -> fixtures: then lk/repo.git/config
# is a git directory's config), in any case.
if command -v git >/dev/null; then
	cp "$T/m.orig" "$T/m.yaml"
	git -C "$ws" init -q
	git -C "$ws" config core.hooksPath .githooks
	mkdir -p "$ws/fixtures/repo.git" "$ws/.githooks"
	echo 'ref: refs/heads/main' >"$ws/fixtures/repo.git/HEAD"
	ln -s fixtures "$ws/vend"
	run_agent 'ln -s .githooks out && ln -s ../.git/hooks src/h &&
ln -s ./.GIT/config gcfg && ln -s fixtures lk && ln -s lk/repo.git/config c &&
ln -s .githooks/pre-commit hk && ln -s .GitHooks/pre-push hk2 &&
ln -s vend/repo.git/hooks d && echo ok >src/fine.txt'
	"$A" commit "$S" 2>"$T/cerr"; rc=$?
	expect_eq "commit of links into .git and hooks refuses (exit 1)" "$rc" 1
	for l in out src/h gcfg c hk hk2 d; do
		expect_contains "refuses $l with the symlink_target rule" \
		    "$(cat "$T/cerr")" "refused: $l: symlink_target (a symbolic link may not lead to"
	done
	expect_eq "lk itself leads nowhere guarded" "$(grep -c 'refused: lk:' "$T/cerr")" 0
	check "nothing landed" test ! -e "$ws/src/fine.txt" -a ! -L "$ws/out" -a ! -L "$ws/c"
	# The person's build, then a commit: no hook of the agent's runs.
	[ -L "$ws/out" ] && printf '#!/bin/sh\ntouch %s/PLANTED\n' "$T" >"$ws/out/pre-commit" &&
	    chmod 755 "$ws/out/pre-commit"
	git -C "$ws" add -A >/dev/null 2>&1
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm x >/dev/null 2>&1
	check "no hook planted through a link ran at git commit" test ! -e "$T/PLANTED"
	"$A" discard "$S" 2>/dev/null
fi

# A symlink to the workspace root is the same door: what writes through
# it names the rest, and an archive names it unseen (the review shows
# the archive as binary).  A build that unpacked the agent's assets.tar
# into out/, with out -> ., wrote its .git/hooks/pre-commit, which ran
# at the person's next git commit.
if command -v git >/dev/null && command -v tar >/dev/null; then
	git -C "$ws" config --unset core.hooksPath
	run_agent "d=\$(mktemp -d) && mkdir -p \"\$d/.git/hooks\" &&
printf '#!/bin/sh\\ntouch $T/PLANTED2\\n' >\"\$d/.git/hooks/pre-commit\" &&
chmod 755 \"\$d/.git/hooks/pre-commit\" &&
tar -cf assets.tar -C \"\$d\" .git && ln -s . out && mkdir -p sub && ln -s .. sub/up"
	"$A" commit "$S" 2>"$T/cerr"; rc=$?
	expect_eq "commit of links to the workspace root refuses (exit 1)" "$rc" 1
	for l in out sub/up; do
		expect_contains "refuses $l with the symlink_target rule" \
		    "$(cat "$T/cerr")" "refused: $l: symlink_target (a symbolic link may not lead to"
	done
	check "nothing landed" test ! -e "$ws/assets.tar" -a ! -L "$ws/out"
	# The person's build unpacks its assets, then commits.
	[ -L "$ws/out" ] && tar --no-same-owner -xf "$ws/assets.tar" -C "$ws/out"
	git -C "$ws" add -A >/dev/null 2>&1
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm y >/dev/null 2>&1
	check "no hook unpacked through a link to the root ran at git commit" \
	    test ! -e "$T/PLANTED2"
	"$A" discard "$S" 2>/dev/null
fi
finish
