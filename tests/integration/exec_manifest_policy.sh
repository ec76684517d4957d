#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock exec and airlock profile take the sandbox policy from a
# manifest: denied paths, protected paths, seccomp profile, limits.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws/.git" "$ws/config"
echo "db password" > "$ws/config/prod.env"
echo "top secret" > "$ws/secret.txt"
chown -R 65534:65534 "$ws"
chmod 777 "$ws"
M="$T/sandbox.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"	# the seed's manifest
cat >> "$M" <<YAML

sandbox:
  denyRead: [ "$ws/secret.txt" ]
  protected: [ ".git", "config" ]
  seccomp: strict
  limits:
    memoryMb: 96
    tmpSizeMb: 2
YAML

run() { out=$("$AIRLOCK" exec --manifest "$M" --workspace "$ws" -- "$@" 2>&1); status=$?; }

run sh -c 'cat secret.txt'
expect_contains "manifest_deny_read_hides_the_file" "$out" "Permission denied"
run sh -c 'echo x > config/prod.env'
expect_eq "manifest_protected_path_write_is_refused" "$status" 77
expect_contains "manifest_protected_path_names_the_rule" "$out" "refused: config/prod.env: protected"
expect_eq "protected_file_unchanged" "$(cat "$ws/config/prod.env")" "db password"
run sh -c 'echo written-by-the-runner > out.txt'
expect_eq "manifest_policy_still_allows_workspace_writes" "$status" 0
expect_eq "the_write_reached_the_workspace" "$(cat "$ws/out.txt" 2>&1)" written-by-the-runner
run sh -c 'head -c 4000000 /dev/zero > /tmp/big'
expect_contains "manifest_tmp_size_applies" "$out" "No space left on device"
run sh -c 'grep -c . /proc/self/status >/dev/null; echo strict-ran'
expect_contains "manifest_strict_seccomp_runs_a_shell" "$out" "strict-ran"

prof=$("$AIRLOCK" profile --seatbelt --manifest "$M" --workspace "$ws")
# Seatbelt sees /tmp as /private/tmp.
# (In every spelling: judged by the model of Seatbelt, as on a
# case-insensitive volume.)
printf '%s\n' "$prof" > "$T/prof.sb"
got=$(echo "file-read-data /private$ws/secret.txt" |
    python3 "$top_srcdir/tests/seatbelt/sbpl_eval.py" --fold "$T/prof.sb")
expect_contains "profile_denies_manifest_path" "$got" "deny file-read-data"
wsre=$(printf '%s' "/private$ws" | sed 's/[.]/\\./g')	# as a regex
# In any case: a case-insensitive volume's CONFIG is config, and so is
# "con\ufb01g" (the fi ligature folds to "fi").
fi_lig=$(printf '\357\254\201')
expect_contains "profile_protects_manifest_path" "$prof" "(deny file-write* (regex #\"^$wsre(/.*)?/[cC][oO][nN]([fF][iI]|$fi_lig)[gG](/.*)?\$\"))"

"$AIRLOCK" exec --manifest "$T/missing.yaml" -- true 2>/dev/null
expect_eq "missing_manifest_is_a_config_error" "$?" 78

finish
