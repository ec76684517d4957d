#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock profile --seatbelt, attacked: the profile the built binary prints
# for a workspace is judged by a model of Seatbelt (tests/seatbelt/
# sbpl_eval.py: the last matching rule wins) for the steps an agent inside
# it would take, and every profile goes through the SBPL lint.
. "$top_srcdir/tests/lib.sh"

. "$top_srcdir/tests/seatbelt/attack.sh"

# judge NAME PROFILE VERDICT QUERY: the model's verdict on one step.
judge() {
	got=$(echo "$4" | $EVAL "$2" | cut -d' ' -f1)
	expect_eq "$1" "$got" "$3"
}

# folded PROFILE < "NAME VERDICT QUERY" lines: the model's verdicts as on
# a case-insensitive APFS volume (sbpl_eval.py --fold: each path in every
# spelling the volume takes for it, ".SSH", ".\u017fsh", the agent's
# pick), in one run of the model.
folded() {
	cat > "$T/fold.want"
	sed 's/^[^ ]* [^ ]* //' "$T/fold.want" |
	    $EVAL --fold "$1" > "$T/fold.out"
	verdicts "$T/fold.want" "$T/fold.out"
}

# A denied path in the workspace, and credential stores in it (a
# workspace at ~/.config, a dotfiles repository, holds ~/.config/gh):
# Seatbelt matches names, so a rename of the file or of a directory above
# it would let it be read under the new name.
mkdir -p "$T/ws"
H="$T/home"
W="$H/.config"
mkdir -p "$W/gh" "$W/app/secrets"
echo "oauth_token: gho_x" > "$W/gh/hosts.yml"
echo "DB_PASSWORD=x" > "$W/app/secrets/db.env"
M="$T/deny.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<YAML

sandbox:
  denyRead: [ "$W/app/secrets/db.env" ]
YAML
if profile deny "$H" --workspace "$W" --manifest "$M"; then
	P="$T/deny.sb"
	w="/private$W"
	judge denied_file_unreadable "$P" deny "file-read-data $w/app/secrets/db.env"
	judge denied_file_not_renamed "$P" deny "rename $w/app/secrets/db.env $w/x"
	judge denied_parent_not_renamed "$P" deny "rename $w/app/secrets $w/x"
	judge denied_grandparent_not_renamed "$P" deny "rename $w/app $w/x"
	judge denied_file_not_overwritten "$P" deny "file-write-data $w/app/secrets/db.env"
	judge credential_store_unreadable "$P" deny "file-read-data $w/gh/hosts.yml"
	judge credential_store_not_renamed "$P" deny "rename $w/gh $w/x"
	judge credential_file_not_renamed "$P" deny "rename $w/gh/hosts.yml $w/x"
	judge credential_store_not_written "$P" deny "file-write-create $w/gh/config.yml"
	# The rest of the workspace stays writable, the sibling movable.
	judge workspace_writable "$P" allow "file-write-create $w/app/main.c"
	judge sibling_renamed "$P" allow "rename $w/app/main.c $w/app/b.c"
	folded "$P" <<EOF
fold_denied_file_unreadable deny file-read-data $w/app/secrets/db.env
fold_denied_parent_not_renamed deny rename $w/app/secrets $w/x
fold_denied_file_not_overwritten deny file-write-data $w/app/secrets/db.env
fold_credential_store_unreadable deny file-read-data $w/gh/hosts.yml
fold_credential_store_not_renamed deny rename $w/gh $w/x
fold_credential_store_not_written deny file-write-create $w/gh/config.yml
fold_sibling_renamed allow rename $w/app/main.c $w/app/b.c
EOF
fi

# Every credential store the rest of airlock knows (policy/sensitive.c),
# not only those the profile once listed: on macOS all else is readable.
if profile creds "/Users/dev" --workspace "$T/ws"; then
	P="$T/creds.sb"
	for f in .pgpass .config/hub/config .password-store/bank.gpg \
	    .local/share/keyrings/login.keyring .ssh/id_ed25519 \
	    .aws/credentials Library/Keychains/login.keychain-db; do
		judge "credential_store_unreadable_$f" "$P" deny \
		    "file-read-data /Users/dev/$f"
	done
	judge "home_readable" "$P" allow "file-read-data /Users/dev/.zshrc"
	# In every spelling: on a case-insensitive APFS volume ~/.SSH,
	# /USERS/dev/.ssh and ~/.\u017fsh are ~/.ssh.
	folded "$P" <<EOF
fold_ssh_unreadable deny file-read-data /Users/dev/.ssh/id_ed25519
fold_aws_unreadable deny file-read-data /Users/dev/.aws/credentials
fold_keychains_unreadable deny file-read-data /Users/dev/Library/Keychains/login.keychain-db
fold_system_keychains_unreadable deny file-read-data /Library/Keychains/System.keychain
fold_gh_unreadable deny file-read-data /Users/dev/.config/gh/hosts.yml
fold_home_readable allow file-read-data /Users/dev/.zshrc
EOF
fi

# Names that are not ASCII have other spellings on such a volume too:
# NFC and NFD ("zo\u00eb" and "zoe\u0308" are one name: APFS compares
# case-folded NFD), the other case of a non-ASCII letter ("ZO\u00cb"),
# and a character that folds to ASCII is that ASCII ("stra\u00dfe" is
# "strasse").  A home directory, a denyRead path or a protected pattern
# holding one is denied in every spelling.
zoe=$(printf 'zo\303\253')
zoe_nfd=$(printf 'zoe\314\210')
M="$T/nonascii.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<YAML

sandbox:
  denyRead: [ "/Users/$zoe/stra$(printf '\303\237')e/key" ]
  protected: [ ".git", "schl$(printf '\303\274')ssel*" ]
YAML
if profile nonascii "/Users/$zoe" --workspace "$T/ws" --manifest "$M"; then
	w="/private$T/ws"
	folded "$T/nonascii.sb" <<EOF
nonascii_home_ssh_unreadable deny file-read-data /Users/$zoe/.ssh/id_ed25519
nonascii_home_nfd_ssh_unreadable deny file-read-data /Users/$zoe_nfd/.ssh/id_ed25519
nonascii_home_aws_unreadable deny file-read-data /Users/$zoe/.aws/credentials
nonascii_denied_unreadable deny file-read-data /Users/$zoe/strasse/key
nonascii_protected_denied deny file-write-create $w/a/schl$(printf 'u\314\210')sselbund
nonascii_home_readable allow file-read-data /Users/$zoe/.zshrc
nonascii_workspace_writable allow file-write-create $w/a/schlaf.txt
EOF
fi

# airlock's own directories where this environment puts them (here
# AIRLOCK_STATE_DIR...): the sealed secrets' key, the audit host key.
mkdir -p "$T/astate/keys" "$T/aconf" "$T/arun"
AIRLOCK_STATE_DIR=$T/astate AIRLOCK_CONFIG_DIR=$T/aconf \
    AIRLOCK_RUNTIME_DIR=$T/arun
export AIRLOCK_STATE_DIR AIRLOCK_CONFIG_DIR AIRLOCK_RUNTIME_DIR
if profile own "/Users/dev" --workspace "$T/ws"; then
	P="$T/own.sb"
	judge state_secrets_key_unreadable "$P" deny "file-read-data /private$T/astate/secrets.key"
	judge state_host_key_unreadable "$P" deny "file-read-data /private$T/astate/keys/audit.key"
	judge config_unreadable "$P" deny "file-read-data /private$T/aconf/audit.conf"
	judge runtime_unreadable "$P" deny "file-read-data /private$T/arun/x"
	folded "$P" <<EOF
fold_state_secrets_key_unreadable deny file-read-data /private$T/astate/secrets.key
fold_config_unreadable deny file-read-data /private$T/aconf/audit.conf
EOF
fi
unset AIRLOCK_STATE_DIR AIRLOCK_CONFIG_DIR AIRLOCK_RUNTIME_DIR
# A directory that cannot be written into a profile refuses it.
AIRLOCK_STATE_DIR="$T/a\"b" "$AIRLOCK" profile --seatbelt --workspace "$T/ws" \
    > /dev/null 2>&1
expect_eq "unquotable_state_dir_is_refused" "$?" 78

# A credential store or a denied path that is a symlink (dotfiles):
# Seatbelt matches the resolved name, so its target is denied too.
H2="$T/home2"
mkdir -p "$H2" "$T/dotfiles/aws" "$T/vault"
ln -s "$T/dotfiles/aws" "$H2/.aws"
ln -s "$T/vault" "$H2/vault"
M="$T/link.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<YAML

sandbox:
  denyRead: [ "~/vault" ]
YAML
if profile link "$H2" --workspace "$T/ws" --manifest "$M"; then
	P="$T/link.sb"
	judge linked_store_target_unreadable "$P" deny "file-read-data /private$T/dotfiles/aws/credentials"
	judge linked_store_name_unreadable "$P" deny "file-read-data /private$H2/.aws/credentials"
	judge linked_denied_target_unreadable "$P" deny "file-read-data /private$T/vault/key"
	judge linked_denied_name_unreadable "$P" deny "file-read-data /private$H2/vault/key"
	judge link_sibling_readable "$P" allow "file-read-data /private$T/dotfiles/zshrc"
fi

# A protected pattern whose ancestor is missing ("present at start or
# not"): the agent writes .gh/workflows/evil.yml, then renames .gh to
# .github; a rename's new name is a create, which must be refused there.
# Likewise a hooks directory whose parent is missing.
mkdir -p "$T/pws/.husky"
git -C "$T/pws" init -q
git -C "$T/pws" config core.hooksPath .hk/_
M="$T/prot.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<YAML

sandbox:
  protected: [ ".git", ".github/workflows", "config/prod/db.env" ]
YAML
if profile prot "/Users/dev" --workspace "$T/pws" --manifest "$M"; then
	P="$T/prot.sb"
	w="/private$T/pws"
	judge staging_elsewhere_allowed "$P" allow "file-write-create $w/.gh/workflows/evil.yml"
	judge workflows_direct_denied "$P" deny "file-write-create $w/.github/workflows/evil.yml"
	judge rename_onto_missing_ancestor_denied "$P" deny "rename $w/.gh $w/.github"
	judge rename_onto_missing_ancestor_at_depth_denied "$P" deny "rename $w/sub/.gh $w/sub/.GitHub"
	judge rename_onto_missing_middle_ancestor_denied "$P" deny "rename $w/config/p2 $w/config/prod"
	judge rename_onto_missing_top_ancestor_denied "$P" deny "rename $w/c2 $w/config"
	judge rename_onto_missing_hooks_parent_denied "$P" deny "rename $w/x $w/.hk"
	judge other_github_files_writable "$P" allow "file-write-create $w/.github/dependabot.yml"
	judge unrelated_rename_allowed "$P" allow "rename $w/a $w/b"
	# The TMPDIR is on the workspace's volume: a repository, a bare
	# repository's HEAD or a protected pattern made there and renamed
	# into the workspace would be in place.
	judge tmpdir_git_denied "$P" deny "file-write-create $TMPD/x/.git/config"
	judge tmpdir_git_any_case_denied "$P" deny "file-write-create $TMPD/a/b/.GIT"
	judge tmpdir_head_denied "$P" deny "file-write-create $TMPD/x/HEAD"
	judge tmpdir_hg_denied "$P" deny "file-write-create $TMPD/x/.hg/hgrc"
	judge tmpdir_pattern_denied "$P" deny "file-write-create $TMPD/x/.github/workflows/e.yml"
	judge tmpdir_pattern_ancestor_denied "$P" deny "rename $TMPD/x/.gh $TMPD/x/.github"
	judge tmpdir_writable "$P" allow "file-write-create $TMPD/build/a.o"
	judge tmpdir_tree_renamed_in "$P" allow "rename $TMPD/x $w/x"
fi
# The same where the TMPDIR is a parameter of sandbox-exec.
if HOME=/Users/dev "$AIRLOCK" profile --seatbelt --workspace "$T/pws" \
    --manifest "$M" > "$T/param.sb" 2> "$T/param.err"; then
	got=$(echo "file-write-create $TMPD/x/.git/config" |
	    $EVAL "$T/param.sb" "TMPDIR=$TMPD" | cut -d' ' -f1)
	expect_eq tmpdir_param_git_denied "$got" deny
	got=$(echo "file-write-create $TMPD/build/a.o" |
	    $EVAL "$T/param.sb" "TMPDIR=$TMPD" | cut -d' ' -f1)
	expect_eq tmpdir_param_writable "$got" allow
else
	fail tmpdir_param_generates
fi

# On a case-insensitive volume (macOS's default) a protected name has
# other spellings: ".\u017fl" (LONG S) is ".sl", "wor\u212aflows" (KELVIN
# SIGN) and "work\ufb02ows" (the fl ligature) are "workflows".  Seatbelt
# may match the spelling the agent used: every one is denied.
mkdir -p "$T/fws/.hk/_"
git -C "$T/fws" init -q
git -C "$T/fws" config core.hooksPath .hk/_
printf '#!/bin/sh\nnpx lint-staged\n' > "$T/fws/.hk/_/pre-commit"
M="$T/fold.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<'YAML'

sandbox:
  protected: [ ".git", ".vscode", ".github/workflows", "*.key", "f?x", "config/secrets", "s*s", "x/f?i", "y/f*f*i" ]
YAML
# On an HFS+ volume (TN1150) a name compares without U+200C..U+200F,
# U+202A..U+202E, U+206A..U+206F and U+FEFF: ".g\u200cit" is ".git".
zwnj=$(printf '\342\200\214')
bom=$(printf '\357\273\277')
if profile fold "/Users/dev" --workspace "$T/fws" --manifest "$M"; then
	w="/private$T/fws"
	folded "$T/fold.sb" <<EOF
fold_ligature_across_star_denied deny file-write-create $w/a/ss
fold_ligature_across_question_denied deny file-write-create $w/x/ffi
fold_ligature_across_stars_denied deny file-write-create $w/y/ffi
fold_across_star_other_writable allow file-write-create $w/a/sx
hfs_git_denied deny file-write-create $w/.g${zwnj}it/description
hfs_vscode_denied deny file-write-create $w/${bom}.vscode/tasks.json
hfs_ssh_unreadable deny file-read-data /Users/dev/.s${zwnj}sh/id_ed25519
fold_sl_denied deny file-write-create $w/.sl/store
fold_sl_at_depth_denied deny file-write-create $w/a/b/.sl/store
fold_git_denied deny file-write-create $w/src/.git/config
fold_vscode_denied deny file-write-create $w/.vscode/tasks.json
fold_workflows_denied deny file-write-create $w/.github/workflows/ci.yml
fold_glob_denied deny file-write-create $w/keys/prod.key
fold_glob_wildcard_ligature_denied deny file-write-create $w/ffx
fold_secrets_denied deny file-write-create $w/config/secrets/db.env
fold_secrets_ancestor_not_made deny rename $w/c2 $w/config
fold_hooks_denied deny file-write-create $w/.hk/_/pre-commit
fold_hooks_parent_not_made deny rename $w/x $w/.hk
fold_lintstaged_config_denied deny file-write-create $w/sub/.lintstagedrc
fold_lintstaged_package_json_denied deny file-write-data $w/package.json
fold_tmpdir_sl_denied deny file-write-create $TMPD/x/.sl/store
fold_tmpdir_vscode_denied deny file-write-create $TMPD/x/.vscode/tasks.json
fold_workspace_writable allow file-write-create $w/src/main.c
fold_config_writable allow file-write-create $w/config/app.yml
EOF
fi

# A protected glob read as fnmatch(3) reads it (the change sets do): a
# ']' first in a bracket is a member, "[:digit:]" a class.
M="$T/glob.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<'YAML'

sandbox:
  protected: [ ".git", "[[:digit:]]*.key", "[]]x" ]
YAML
if profile glob "/Users/dev" --workspace "$T/ws" --manifest "$M"; then
	P="$T/glob.sb"
	w="/private$T/ws"
	judge glob_class_protected "$P" deny "file-write-data $w/d/5prod.key"
	judge glob_bracket_first_protected "$P" deny "file-write-data $w/]x"
	judge glob_other_writable "$P" allow "file-write-data $w/d/prod.txt"
fi

finish
