#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# As an ordinary user the broker cannot write into a directory of mode
# 0555, and a run may make one: its change set lands the mode.  Every
# write_file, apply_patch and command's change set into it then failed
# write_failed, "retryable": true, every time (EACCES on the rename), and
# a retryable refusal is not counted by runBudget.maxRefusedCalls, so an
# agent could have it refused in a loop without being cut off (six
# write_file calls with maxRefusedCalls 3: six retryable refusals, none
# counted).  Now an apply's failure is retryable only where a retry may
# succeed (a full disk, an I/O error: applyjournal_failed()); these are
# not, and the fourth refusal cuts the agent off.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
U=4242
chmod 755 "$T"
ws="$T/ws"; st="$T/state"
mkdir -p "$ws/ro" "$st"
echo old >"$ws/ro/f.txt"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: run_check
    input: { checkId: approved_check }
    output: { exitCode: integer }
    sideEffect: sandbox_process
    timeoutMs: 20000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { sha256: sha256, bytes: integer }
    sideEffect: workspace_write
    timeoutMs: 5000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
checks:
  lock: { argv: ["chmod", "555", "ro"], timeoutMs: 10000 }
  build: { argv: ["sh", "-c", "chmod 755 ro && echo built >ro/out.txt && chmod 555 ro"], timeoutMs: 10000 }
runBudget:
  maxRefusedCalls: 3
EOF2
chmod 644 "$T/m.yaml"
chown -R "$U:$U" "$ws" "$st"
# airlock serve as uid $U (mcp_lib runs "$AIRLOCK serve ...").
cat >"$T/as_user" <<EOF2
#!/bin/sh
exec setpriv --reuid=$U --regid=$U --clear-groups env HOME="$st" \
    XDG_STATE_HOME="$st" XDG_RUNTIME_DIR="$st" "$AIRLOCK" "\$@"
EOF2
chmod 755 "$T/as_user"
AIRLOCK="$T/as_user"

printf -- '--- a/ro/f.txt\n+++ b/ro/f.txt\n@@ -1 +1 @@\n-old\n+new\n' >"$T/p.diff"
mcp_start "$T/m.yaml" "$ws"
mcp_call run_check '{"checkId":"lock"}' 60
expect_eq "the run made ro 0555" "$(stat -c %a "$ws/ro")" 555
mcp_call write_file '{"path":"ro/f.txt","content":"new\n"}'
expect_eq "write_file into it: write_failed" \
    "$(jr .result.structuredContent.errorClass)" write_failed
expect_eq "write_file: not retryable" \
    "$(jr .result.structuredContent.retryable)" false
mcp_call apply_patch "{\"patch\":$(json_str "$T/p.diff"),\"expectedBaseSha\":\"$(sha256sum <"$ws/ro/f.txt" | cut -d' ' -f1)\"}"
expect_eq "apply_patch into it: write_failed" \
    "$(jr .result.structuredContent.errorClass)" write_failed
expect_eq "apply_patch: not retryable" \
    "$(jr .result.structuredContent.retryable)" false
mcp_call run_check '{"checkId":"build"}' 60
expect_eq "a change set into it: write_failed" \
    "$(jr .result.structuredContent.errorClass)" write_failed
expect_eq "the change set: not retryable" \
    "$(jr .result.structuredContent.retryable)" false
expect_eq "ro/f.txt unchanged" "$(cat "$ws/ro/f.txt")" old
expect_eq "ro/out.txt not made" "$(test -e "$ws/ro/out.txt" && echo made)" ""
mcp_call write_file '{"path":"ro/f.txt","content":"new\n"}'
expect_contains "the fourth refusal: cut off by maxRefusedCalls" \
    "$(jr .error.message)" maxRefusedCalls
mcp_stop
finish
