#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A patched file may be no larger than write_file may write (4 MiB,
# WRITE_MAX).  The broker read a file of at most 4 MiB for a patch, but
# the result may be the old file and the patch (1 MiB more): a patch
# that added a line to a 4 MiB file landed a file over the limit, which
# no later patch could change (the broker reads no more than 4 MiB of a
# file: path_refused) and write_file could not write back.  Now such a
# patch is refused too_large before the budgets count it, naming the
# file and its size, and nothing is written.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
cat >"$T/m.yaml" <<'EOF'
tools:
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 20000
runBudget:
  maxChangedFiles: 5
EOF
# 41943 lines of 100 bytes and "end\n": 4194304 bytes, the most a file
# the broker writes may hold.
{
	yes "$(printf '%099d' 0)" | head -n 41943
	echo end
} >"$ws/big.txt"
expect_eq "the file is 4 MiB" "$(stat -c %s "$ws/big.txt")" 4194304
sum_before=$(sha256sum <"$ws/big.txt" | cut -d' ' -f1)
patch_args() {	# DIFF-FILE: apply_patch's arguments against big.txt
	printf '{"patch":%s,"expectedBaseSha":"%s"}' "$(json_str "$1")" \
	    "$(sha256sum <"$ws/big.txt" | cut -d' ' -f1)"
}

mcp_start "$T/m.yaml" "$ws"
# One line added at its end: 4194309 bytes.
printf -- '--- a/big.txt\n+++ b/big.txt\n@@ -41944 +41944,2 @@\n end\n+more\n' >"$T/grow.diff"
mcp_call apply_patch "$(patch_args "$T/grow.diff")" 60
expect_error_class "a patch growing it past 4 MiB: refused" too_large
expect_contains "... naming the file and its size" \
    "$(jr .result.structuredContent.message)" "big.txt would be 4194309 bytes"
expect_eq "... the file is as it was" \
    "$(sha256sum <"$ws/big.txt" | cut -d' ' -f1)" "$sum_before"
expect_eq "... no trash left" "$(compgen -G "$ws/.airlock-trash-*" | wc -l)" 0
mcp_rpc airlock/session/status '{}'
expect_eq "... the budgets did not count it" \
    "$(jr .result.budgets.maxChangedFiles.used)" 0
# The control: the same line changed to one as long lands.
printf -- '--- a/big.txt\n+++ b/big.txt\n@@ -41944 +41944 @@\n-end\n+fin\n' >"$T/same.diff"
mcp_call apply_patch "$(patch_args "$T/same.diff")" 60
expect_ok_result "a patch keeping it at 4 MiB: applied"
expect_eq "... the file changed" "$(tail -n 1 "$ws/big.txt")" fin
expect_eq "... still 4 MiB" "$(stat -c %s "$ws/big.txt")" 4194304
mcp_stop
finish
