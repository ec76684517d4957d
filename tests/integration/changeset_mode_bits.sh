#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# What lands of the modes a run sets, through the broker (an exec tool
# whose runner writes an overlay):
# - a setuid, setgid or sticky bit the run sets on a file or directory
#   is refused (change_refused, special_bits), as before;
# - a world-write bit the workspace did not have on that path is
#   dropped, and the drop was said nowhere: the result and the
#   change_applied record now list it (modesDropped: path, the mode the
#   run set, the mode that landed);
# - a directory a run made inside a setgid directory of the checkout
#   (a group-shared one) got the setgid bit from the kernel, and the
#   whole set was refused for it; then it landed without the bit, so
#   what the owner made in it later had the owner's group, not the
#   shared one: it lands with the bit now, as the kernel gives it to
#   the owner's own mkdir (a bit the run sets itself is refused);
# - a run whose only change was a world-write bit that does not land
#   (chmod o+w of a directory) was told in its result and recorded
#   nowhere: a change_applied of 0 entries lists the drop now;
# - a file written into a 1777 directory of the checkout made the
#   directory a mode change (its world-write bit dropped, its sticky bit
#   kept) and refused the set; a chmod of a setgid or sticky directory
#   of the checkout was refused for the bit the checkout had: such a
#   directory is left alone now, or keeps its own special bits;
# - the group-write bit lands (the group is the checkout's own).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
ws=$(make_workspace)
mkdir -p "$ws/sg" "$ws/st" "$ws/d"
chmod 2775 "$ws/sg"
chmod 1777 "$ws/st"
chmod 755 "$ws/d"
cat >"$T/m.yaml" <<'EOF2'
tools:
  - name: sh
    action: exec
    input: { command: string }
    output: { exitCode: integer, stdout: string, stderr: string }
    sideEffect: sandbox_process
    timeoutMs: 20000
EOF2
mode() { stat -c %a "$ws/$1" 2>&1; }
# sh CMD: runs CMD; the result in $R.
sh_call() { mcp_call sh "{\"command\":$(printf '%s' "$1" | jq -Rs .)}" 60; }
# refused NAME CMD PATH: CMD's set is refused for PATH's special bits.
refused() {
	sh_call "$2"
	expect_error_class "$1: refused" change_refused
	expect_eq "$1: by special_bits" \
	    "$(jr -c "[.result.structuredContent.refused[] | select(.path == \"$3\") | .rule]")" \
	    '["special_bits"]'
	check "$1: nothing landed" test ! -e "$ws/$3"
}

mcp_start "$T/m.yaml" "$ws"
refused "setuid file" 'cp /bin/sh sb && chmod 4755 sb' sb
refused "setgid file" 'echo x >gf && chmod 2755 gf' gf
refused "setgid directory" 'mkdir gd && chmod 2775 gd' gd
refused "sticky directory" 'mkdir td && chmod 1777 td' td
refused "setgid set in a setgid directory" 'echo x >sg/gf && chmod g+s sg/gf' sg/gf

# World-write bits the checkout did not have: dropped, and said so.
sh_call 'echo x >ww && chmod 666 ww && mkdir wd && chmod 777 wd && chmod o+w d'
expect_ok_result "world-write: the set lands"
expect_eq "world-write: a file lands without it" "$(mode ww)" 664
expect_eq "world-write: a directory too" "$(mode wd)" 775
expect_eq "world-write: an existing directory keeps its mode" "$(mode d)" 755
expect_eq "world-write: the result lists each drop" \
    "$(jr -c '[.result.structuredContent.modesDropped[] | [.path, .mode, .landed]] | sort')" \
    '[["d","0757","0755"],["wd","0777","0775"],["ww","0666","0664"]]'

# A run whose only change does not land changed nothing, and is told.
sh_call 'chmod o+w d'
expect_ok_result "world-write only: the run succeeds"
expect_eq "world-write only: the directory keeps its mode" "$(mode d)" 755
expect_eq "world-write only: the result says so" \
    "$(jr -c '[.result.structuredContent.modesDropped[] | [.path, .mode, .landed]]')" \
    '[["d","0757","0755"]]'

# A directory made inside a setgid directory: lands with the bit, as the
# owner's own mkdir there would have it.
sh_call 'mkdir -p sg/new/deep && echo x >sg/new/deep/f'
expect_ok_result "inherited setgid: the set lands"
expect_eq "inherited setgid: the setgid bit lands" "$(mode sg/new) $(mode sg/new/deep)" "2755 2755"
expect_eq "inherited setgid: the file lands" "$(cat "$ws/sg/new/deep/f" 2>&1)" x
expect_eq "inherited setgid: the checkout's directory keeps its own" "$(mode sg)" 2775
expect_eq "inherited setgid: nothing dropped" \
    "$(jr -c .result.structuredContent.modesDropped)" null
# ... but not one the run moved out of it, nor one it set on its own.
refused "setgid directory moved out of a setgid one" 'mkdir sg/mv && mv sg/mv mvd' mvd

# A checkout's sticky directory written into, and its special bits kept.
sh_call 'echo x >st/nf'
expect_ok_result "sticky directory written into: the set lands"
expect_eq "sticky directory written into: the file lands" "$(cat "$ws/st/nf" 2>&1)" x
expect_eq "sticky directory written into: left as it was" "$(mode st)" 1777
sh_call 'chmod g-w sg && chmod 1775 st'
expect_ok_result "chmod of special directories: the set lands"
expect_eq "chmod of special directories: each keeps its own bit" "$(mode sg) $(mode st)" "2755 1775"
sh_call 'chmod 777 st'
expect_ok_result "sticky bit taken off: the set lands"
expect_eq "sticky bit taken off: the world-write bit goes with it" "$(mode st)" 775
expect_eq "sticky bit taken off: noted" \
    "$(jr -c '[.result.structuredContent.modesDropped[] | [.path, .mode, .landed]]')" \
    '[["st","0777","0775"]]'

# A symlink's mode is no one's: the kernel makes every one 0777 and it
# lands 0777.  Each symlink a run made was listed as a drop ("mode 0777
# landed as 0775") in the result, change_applied and exec_end, a bit
# said dropped that landed.
sh_call 'ln -s gw lnk'
expect_ok_result "symlink: the set lands"
expect_eq "symlink: it lands" "$(readlink "$ws/lnk")" gw
expect_eq "symlink: no drop told in the result" "$(jr -c .result.structuredContent.modesDropped)" null

# The group-write bit lands.
sh_call 'echo x >gw && chmod 664 gw'
expect_eq "group-write: lands" "$(mode gw)" 664
expect_eq "group-write: not noted" "$(jr -c .result.structuredContent.modesDropped)" null
# Paths are the agent's: 1000 drops of 1 KiB paths would not fit a line of
# the log, and the record of a set that landed would be lost.  As many
# as fit in 256 KiB are listed, all counted.
sh_call 'n=$(printf "%0250d" 0); p=$n/$n/$n/$n; mkdir -p $p && cd $p && for i in $(seq 1000); do : >$i; done && chmod 666 *'
expect_ok_result "many drops: the set lands"
expect_eq "many drops: all counted, as many listed as fit" \
    "$(jr -c '.result.structuredContent.modesDropped | length')" 260
mcp_stop

sess=$(newest_session)
expect_eq "many drops: the record is written, counting them all" \
    "$(jq -c 'select(.event == "change_applied" and .fields.modesDroppedTotal == 1000) | .fields.modesDropped | length' "$sess/audit.jsonl" 2>&1)" \
    260
# airlock exec tells the same, on stderr and in exec_end.
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c 'echo x >ex && chmod 666 ex' 2>&1)
expect_contains "exec: the drop is told" "$out" "exec: ex: mode 0666 landed as 0664"
expect_eq "exec: the file lands without the bit" "$(mode ex)" 664
esess=$(newest_session)
expect_eq "exec: exec_end lists the drop" \
    "$(jq -c 'select(.event == "exec_end") | .fields.changeSet.modesDropped' "$esess/audit.jsonl" 2>&1)" \
    '[{"landed":"0664","mode":"0666","path":"ex"}]'
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" -- sh -c 'ln -s ex elnk' 2>&1)
expect_eq "exec: a symlink lands" "$(readlink "$ws/elnk")" ex
expect_not_contains "exec: no drop told of it" "$out" "elnk: mode"
esess=$(newest_session)
expect_eq "exec: nor in exec_end" \
    "$(jq -c 'select(.event == "exec_end") | .fields.changeSet.modesDropped' "$esess/audit.jsonl" 2>&1)" null
expect_eq "symlink: nor in change_applied" \
    "$(jq -c 'select(.event == "change_applied") | .fields.modesDropped // [] | .[] | select(.path == "lnk")' "$sess/audit.jsonl" 2>&1)" ""

expect_eq "the change_applied record lists the drops" \
    "$(jq -c 'select(.event == "change_applied" and .fields.modesDropped != null) | [.fields.modesDropped[] | [.path, .mode, .landed]] | sort' "$sess/audit.jsonl" 2>&1 | head -1)" \
    '[["d","0757","0755"],["wd","0777","0775"],["ww","0666","0664"]]'
expect_eq "the change_applied record counts them" \
    "$(jq -c 'select(.event == "change_applied" and .fields.modesDropped != null) | .fields.modesDroppedTotal' "$sess/audit.jsonl" 2>&1 | tr '\n' ' ')" \
    "3 1 1 1000 "
expect_eq "world-write only: a change_applied of 0 entries records the drop" \
    "$(jq -c 'select(.event == "change_applied" and .fields.entries == 0) | [.fields.modesDropped[] | [.path, .mode, .landed]]' "$sess/audit.jsonl" 2>&1)" \
    '[["d","0757","0755"]]'
check "no setuid or setgid bit landed but the checkout's own and inherited" \
    test "$(cd "$ws" && find . -perm /6000 | sort | tr '\n' ' ')" = "./sg ./sg/new ./sg/new/deep "
finish
