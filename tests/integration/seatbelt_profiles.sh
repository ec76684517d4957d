#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# airlock profile --seatbelt, from the built binary: golden profiles for
# several manifests (the workspace path replaced by @WS@), every profile
# through the lint (tests/seatbelt/lint.py: balanced, known operations and
# filters, no unfiltered allow of mach-lookup, sysctl-read, file-write*,
# network*, no LaunchServices), and the lint itself failing on profiles
# that break each rule.  AIRLOCK_UPDATE_GOLDEN=1 rewrites the goldens.
. "$top_srcdir/tests/lib.sh"

SB="$top_srcdir/tests/seatbelt"
LINT="python3 $SB/lint.py $SB/known.txt"
mkdir -p "$T/ws" "$T/wt" "$T/main.git/worktrees/wt"
ws="$T/ws"
# What Seatbelt sees: /tmp is /private/tmp.
seen="/private$ws"

# golden NAME [profile options...]: the profile, compared and linted.
golden() {
	name=$1
	shift
	# airlock's state directory where the goldens can name it (each path
	# is written in every spelling: "@T@" could not stand for it).
	if ! HOME=/Users/dev AIRLOCK_HOME=/Users/dev/.airlock-state \
	    "$AIRLOCK" profile --seatbelt \
	    --tmpdir /private/var/folders/xy/abc123/T/airlock.Q1w2e3 "$@" \
	    > "$T/$name.raw" 2> "$T/$name.err"; then
		fail "${name}_generates"
		cat "$T/$name.err"
		return
	fi
	sed -e "s|$(printf '%s' "$seen" | sed 's/[.]/\\\\./g')|@WS@|g" \
	    -e "s|$seen|@WS@|g" -e "s|/private$T|@T@|g" \
	    "$T/$name.raw" > "$T/$name.sb"
	if [ -n "${AIRLOCK_UPDATE_GOLDEN:-}" ]; then
		cp "$T/$name.sb" "$SB/golden/$name.sb"
	fi
	if diff -u "$SB/golden/$name.sb" "$T/$name.sb"; then
		pass "${name}_matches_golden"
	else
		fail "${name}_matches_golden"
	fi
	if out=$($LINT "$T/$name.raw"); then
		pass "${name}_passes_lint"
	else
		fail "${name}_passes_lint"
		echo "$out"
	fi
}

golden default --workspace "$ws"
golden workboard --workspace "$ws" --manifest "$top_srcdir/tests/golden/workboard.yaml"
golden contrib_default --workspace "$ws" \
    --manifest "$top_srcdir/contrib/manifests/default.yaml"

M="$T/network.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<'YAML'

sandbox:
  network: proxy
  denyRead: [ "~/.config/company", "/etc/company-secret" ]
  protected: [ ".git", ".github/workflows", "*.pem", "deploy/prod" ]
YAML
golden network --workspace "$ws" --manifest "$M" --proxy-port 41823 \
    --tty /dev/ttys004

# A worktree: .git is a file naming the repository elsewhere.
echo "gitdir: ../main.git/worktrees/wt" > "$T/wt/.git"
seen="/private$T/wt"
golden worktree --workspace "$T/wt"
prof=$(cat "$T/worktree.raw")
expect_contains "gitdir_target_is_protected" "$prof" \
    "(deny file-write* (subpath \"/private$T/main.git/worktrees/wt\"))"
echo "gitdir: ../nowhere" > "$T/wt/.git"
"$AIRLOCK" profile --seatbelt --workspace "$T/wt" > /dev/null 2> "$T/err"
expect_eq "unresolvable_gitdir_is_refused" "$?" 78
expect_contains "unresolvable_gitdir_says_why" "$(cat "$T/err")" "gitdir: file"

# A repository whose hooks live in the working tree (husky's
# core.hooksPath .husky/_, an included team.gitconfig): denied as .git.
mkdir -p "$T/husky/.husky/_"
git -C "$T/husky" init -q
git -C "$T/husky" config core.hooksPath .husky/_
git -C "$T/husky" config include.path ../team.gitconfig
seen="/private$T/husky"
golden husky --workspace "$T/husky"
prof=$(cat "$T/husky.raw")
expect_contains "husky_hooks_are_protected" "$prof" "; git hook: .husky/_"
expect_contains "husky_hooks_parent_is_protected" "$prof" "; git hook: .husky"
expect_contains "included_config_is_protected" "$prof" "; git hook: team.gitconfig"
# Its pre-commit hook runs lint-staged, and a husky v4 hook is there too:
# lint-staged's configs and package.json at any depth are denied, whose
# values no profile can compare (the change sets do).
printf '#!/bin/sh\nnpx lint-staged\n' >"$T/husky/.husky/_/pre-commit"
printf '#!/bin/sh\n# husky\n' >"$T/husky/.husky/_/pre-push"
prof=$("$AIRLOCK" profile --seatbelt --workspace "$T/husky")
expect_contains "lintstaged_configs_at_any_depth" "$prof" "lint-staged's configs, at any depth"
expect_contains "lintstaged_package_json" "$prof" '|[Pp][Aa][Cc]([Kk]|K)[Aa][Gg][Ee]\.[Jj]([Ss]|ſ)[Oo][Nn])$'
expect_contains "husky4_package_json" "$prof" "; git hook: package.json"
rm "$T/husky/.husky/_/pre-commit" "$T/husky/.husky/_/pre-push"
mkdir -p "$T/badhome/.gitconfig"
HOME="$T/badhome" "$AIRLOCK" profile --seatbelt --workspace "$T/husky" > /dev/null 2> "$T/err"
expect_eq "unreadable_git_config_is_refused" "$?" 78
expect_contains "unreadable_git_config_says_why" "$(cat "$T/err")" "cannot read git's config"

# A denied path named through a link the sandbox may rewrite (in the
# workspace, or in the run's TMPDIR): the agent points the link at a
# decoy, and the next profile, made from the name, denies the decoy.
mkdir -p "$T/lk/real/secrets" "$T/lk/decoy" "$T/lktmp/real" "$T/out"
ln -s real "$T/lk/conf"
ln -s "$T/lktmp/real" "$T/lktmp/conf"
ln -s "$T/lk/real" "$T/out/conf"
cp "$top_srcdir/tests/golden/workboard.yaml" "$T/lk.yaml"
printf '\nsandbox:\n  denyRead: [ "%s" ]\n' "$T/lk/conf/secrets" \
    >> "$T/lk.yaml"
"$AIRLOCK" profile --seatbelt --workspace "$T/lk" --manifest "$T/lk.yaml" \
    > "$T/lk.sb" 2> "$T/err"
expect_eq "deny_through_workspace_link_is_refused" "$?" 78
expect_contains "deny_through_workspace_link_names_it" "$(cat "$T/err")" \
    "denied path $T/lk/conf/secrets leads through the link $T/lk/conf,"
expect_eq "deny_through_workspace_link_no_profile" "$(wc -c < "$T/lk.sb")" 0
sed -i "s|$T/lk/conf/secrets|$T/lktmp/conf/x|" "$T/lk.yaml"
"$AIRLOCK" profile --seatbelt --workspace "$T/lk" --manifest "$T/lk.yaml" \
    --tmpdir "$T/lktmp" > /dev/null 2> "$T/err"
expect_eq "deny_through_tmpdir_link_is_refused" "$?" 78
expect_contains "deny_through_tmpdir_link_names_it" "$(cat "$T/err")" \
    "leads through the link $T/lktmp/conf,"
# A link the sandbox cannot write, and the path it leads to, are fine.
for p in "$T/out/conf/secrets" "$T/lk/real/secrets"; do
	sed -i "s|denyRead: \[ .* \]|denyRead: [ \"$p\" ]|" "$T/lk.yaml"
	"$AIRLOCK" profile --seatbelt --workspace "$T/lk" \
	    --manifest "$T/lk.yaml" > /dev/null 2> "$T/err"
	expect_eq "deny_$(basename "$(dirname "$(dirname "$p")")")_profile_made" "$?" 0
done

# A denied file in a repository the sandbox reads: its history may hold
# it (git show HEAD:.env), so the repository must be denied as well.
mkdir -p "$T/repo/.git/objects/ab"
: > "$T/repo/.git/objects/ab/cdef"
cp "$top_srcdir/tests/golden/workboard.yaml" "$T/repo.yaml"
printf '\nsandbox:\n  denyRead: [ "%s" ]\n' "$T/repo/.env" >> "$T/repo.yaml"
"$AIRLOCK" profile --seatbelt --workspace "$T/repo" \
    --manifest "$T/repo.yaml" > /dev/null 2> "$T/err"
expect_eq "deny_in_repository_is_refused" "$?" 78
expect_contains "deny_in_repository_names_both" "$(cat "$T/err")" \
    "denied path $T/repo/.env may be in the history of $T/repo/.git,"
sed -i "s|denyRead: \[ .* \]|denyRead: [ \"$T/repo/.env\", \"$T/repo/.git\" ]|" \
    "$T/repo.yaml"
"$AIRLOCK" profile --seatbelt --workspace "$T/repo" \
    --manifest "$T/repo.yaml" > /dev/null 2> "$T/err"
expect_eq "deny_in_denied_repository_profile_made" "$?" 0

# Workspaces a profile must not make writable.
for w in /tmp /; do
	"$AIRLOCK" profile --seatbelt --workspace "$w" > /dev/null 2> "$T/err"
	expect_eq "workspace_${w}_is_refused" "$?" 78
done
HOME=$ws "$AIRLOCK" profile --seatbelt --workspace "$ws" > /dev/null 2>&1
expect_eq "home_as_workspace_is_refused" "$?" 78
"$AIRLOCK" profile --seatbelt --workspace "$ws" --proxy-port 99999 \
    > /dev/null 2>&1
expect_eq "bad_proxy_port_is_a_usage_error" "$?" 64

# The lint fails each broken profile, for the right reason.
for bad in "$SB"/bad/*.sb; do
	name=$(basename "$bad" .sb)
	want=$(sed -n 's/^;; lint: //p' "$bad")
	if out=$($LINT "$bad"); then
		fail "lint_refuses_$name"
	else
		expect_contains "lint_refuses_$name" "$out" "$want"
	fi
done

finish
