#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A denied path is masked whatever name it is given: a home or workspace
# reached through a link (HOME=/home/u with /home/u -> /data/u) is bound
# at what it resolves to, and a denyRead named through the link used to
# mask nothing there, nor did a file's name with a trailing slash.  A
# --deny-read that is not absolute is refused, as
# sandbox.denyRead is: it used to be dropped, masking nothing.  Both
# follow one rule (sandbox_deny_read_path()).
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
real="$T/data/u"
mkdir -p "$real/proj" "$T/home"
ln -s "$real" "$T/home/u"
echo "db-password-4711" > "$real/proj/.env"
echo "public" > "$real/proj/README"
chown -R 65534:65534 "$T/data"
M="$T/sandbox.yaml"
cp "$top_srcdir/tests/golden/workboard.yaml" "$M"
cat >> "$M" <<YAML

sandbox:
  denyRead: [ "~/proj/.env" ]
YAML

# The manifest's ~ is $HOME, the link; the workspace is named by it too.
out=$(cd "$T/home/u/proj" && HOME="$T/home/u" "$AIRLOCK" exec \
    --manifest "$M" --workspace "$T/home/u/proj" -- \
    sh -c 'cat README; cat .env; cat "$0"/.env' "$real/proj" 2>&1)
expect_contains "workspace_still_readable" "$out" "public"
expect_not_contains "manifest_deny_through_link_masks" "$out" "db-password-4711"
expect_contains "manifest_deny_through_link_refused" "$out" "Permission denied"

# The same named on the command line.
out=$(cd "$real/proj" && "$AIRLOCK" exec --workspace "$T/home/u/proj" \
    --deny-read "$T/home/u/proj/.env" -- cat "$real/proj/.env" 2>&1)
expect_not_contains "cli_deny_through_link_masks" "$out" "db-password-4711"

# A trailing slash on a file's name still names it (stat() says ENOTDIR).
out=$(cd "$real/proj" && "$AIRLOCK" exec --workspace "$real/proj" \
    --deny-read "$real//proj/./.env/" -- cat .env 2>&1)
expect_not_contains "deny_with_trailing_slash_masks" "$out" "db-password-4711"

# A relative --deny-read is a usage error, never a silent no-op.
out=$(cd "$real/proj" && "$AIRLOCK" exec --workspace "$real/proj" \
    --deny-read .env -- cat .env 2>&1)
status=$?
expect_eq "relative_deny_read_is_a_usage_error" "$status" 64
expect_not_contains "relative_deny_read_reads_nothing" "$out" "db-password-4711"
# So is one with a ".." component, as in sandbox.denyRead.
out=$(cd "$real/proj" && "$AIRLOCK" exec --workspace "$real/proj" \
    --deny-read "$real/nowhere/../proj/.env" -- cat .env 2>&1)
status=$?
expect_eq "dotdot_deny_read_is_a_usage_error" "$status" 64
expect_contains "dotdot_deny_read_says_why" "$out" "'..' component"
out=$(cd "$real/proj" && env -u HOME "$AIRLOCK" exec --workspace \
    "$real/proj" --deny-read '~/proj/.env' -- cat .env 2>&1)
status=$?
expect_eq "tilde_without_home_is_a_usage_error" "$status" 64
expect_not_contains "tilde_without_home_reads_nothing" "$out" "db-password-4711"

# The agent's broker calls: a denyRead path inside the workspace, masked
# for the agent's own processes, was read, listed and patched by the
# broker for it (read_file, list_files, apply_patch's base), by any
# name: a link in the workspace, "./", "//", a trailing "/".  Each is
# refused now (sensitive_fd_denied()); the rest still reads.
ws="$T/ws2"
mkdir -p "$ws/secrets"
echo "TOPSECRET-env" > "$ws/.env"
echo "TOPSECRET-dir" > "$ws/secrets/key"
echo "public" > "$ws/README"
ln -s secrets "$ws/lk"
ln -s .env "$ws/envlink"
M2="$T/broker.yaml"
cat > "$M2" <<YAML
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: list_files
    input: { path: "workspace_relative_path?", recursive: "boolean?" }
    output: { files: string_list, truncated: boolean }
    sideEffect: none
    timeoutMs: 2000
  - name: apply_patch
    input: { patch: unified_diff, expectedBaseSha: sha256 }
    output: { changedFiles: string_list, newSha: sha256 }
    sideEffect: workspace_write
    timeoutMs: 5000
sandbox:
  denyRead: [ "$ws/.env", "$ws/secrets" ]
YAML
patch='--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-x\n+y\n'
zero=0000000000000000000000000000000000000000000000000000000000000000
# serve_calls MANIFEST WS CALL...: each tools/call's params CALL, through
# airlock serve's MCP (a denied file in a workspace the agent's sandbox
# binds live refuses its start: deny_read_live_bind.sh).
serve_calls() {
	m=$1 w=$2
	shift 2
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
		    '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		i=2
		for a in "$@"; do
			printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}\n' $i "$a"
			i=$((i + 1))
		done
	} | timeout 60 "$AIRLOCK" serve --manifest "$m" --workspace "$w" 2>&1
}
out=$(serve_calls "$M2" "$ws" '{"name":"read_file","arguments":{"path":"README"}}' \
    '{"name":"read_file","arguments":{"path":".env"}}' \
    '{"name":"read_file","arguments":{"path":"./secrets//key"}}' \
    '{"name":"read_file","arguments":{"path":"lk/key"}}' \
    '{"name":"read_file","arguments":{"path":"envlink"}}' \
    '{"name":"list_files","arguments":{"path":".","recursive":true}}' \
    '{"name":"list_files","arguments":{"path":"lk/"}}' \
    "{\"name\":\"apply_patch\",\"arguments\":{\"patch\":\"$patch\",\"expectedBaseSha\":\"$zero\"}}")
expect_contains "broker_reads_the_rest" "$out" 'public'
expect_not_contains "broker_read_file_hides_denied" "$out" "TOPSECRET"
expect_not_contains "broker_list_files_hides_denied" "$out" "secrets/key"
expect_not_contains "broker_list_through_link_hides_denied" "$out" '"lk/key"'
refused=$(printf '%s\n' "$out" | grep -c 'sandbox.denyRead hides it')
expect_eq "broker_refuses_each_denied_name" "$refused" 6

# search over a tree holding denied paths failed whole ("grep: ./.env:
# Permission denied", the runner's mask): it skips them now and says so,
# naming them as list_files does.  A hard link to a denied file, which
# the runner's mask (made from names) does not cover, had its lines
# shown: the runner refuses to start now while one exists (below), and
# the broker still withholds the matches of any name that reaches a
# denied object.
echo "TOPSECRET-hardlinked" > "$ws/id_key"
mkdir "$ws/docs"
echo "public SECRET word" > "$ws/doc.txt"
sed -e "s|denyRead: \[|denyRead: [ \"$ws/id_key\",|" \
    -e 's|^sandbox:|  - name: search\
    input: { pattern: string, path: "workspace_relative_path?" }\
    output: { matches: string_list, truncated: boolean }\
    sideEffect: none\
    timeoutMs: 10000\
sandbox:|' "$M2" > "$T/search.yaml"
search_all() {
	serve_calls "$T/search.yaml" "$ws" \
	    '{"name":"search","arguments":{"pattern":"SECRET"}}' \
	    '{"name":"search","arguments":{"pattern":"SECRET","path":".//"}}' \
	    '{"name":"search","arguments":{"pattern":"SECRET","path":"docs"}}' \
	    '{"name":"search","arguments":{"pattern":"SECRET","path":"lk/"}}'
}
out=$(search_all)
expect_contains "search_skips_denied_finds_the_rest" "$out" \
    './doc.txt:1:public SECRET word'
expect_contains "search_names_what_it_skipped" "$out" \
    './.env: refused: a denyRead path (sandbox.denyRead hides it from the agent); not searched'
expect_not_contains "search_shows_no_denied_content" "$out" "TOPSECRET"
expect_not_contains "search_does_not_fail_whole" "$out" "search_failed"
searched=$(printf '%s\n' "$out" | grep -c '"isError":false')
expect_eq "search_by_each_name_succeeds" "$searched" 3
expect_contains "search_through_link_refused" "$out" \
    'lk/: refused: a denyRead path'
ln "$ws/id_key" "$ws/docs/notes.txt"
out=$(search_all)
expect_not_contains "search_hard_link_hidden" "$out" "TOPSECRET"
expect_contains "search_hard_link_refused" "$out" \
    "denied path $ws/id_key has 2 names (hard links), 1 denied"
rm "$ws/docs/notes.txt"

# A hard link is another name for a denied file, and the masks hide
# names: "cat d/copy" printed the denied key that d/copy is a link to,
# in airlock exec, the agent's own sandbox and every runner, and so did
# a link to a file beneath a denied directory.  A run is refused now
# while a denied file has a name that no denyRead path holds, naming it
# and how to find the others; one whose names are all denied runs.
ws="$T/ws6"
mkdir -p "$ws/d" "$ws/sec/sub"
echo "TOPSECRET-linked-key" > "$ws/key"
ln "$ws/key" "$ws/d/copy"
echo "TOPSECRET-in-dir" > "$ws/sec/sub/k2"
ln "$ws/sec/sub/k2" "$ws/k2link"
ln "$ws/sec/sub/k2" "$ws/sec/k2same"
echo "public" > "$ws/README"
chown -R 65534:65534 "$ws"
steal='cat README d/copy k2link key sec/sub/k2; ln key made 2>&1'
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" \
    --deny-read "$ws/key" -- sh -c "$steal" 2>&1)
expect_not_contains "hard_link_to_denied_hidden" "$out" "TOPSECRET"
expect_contains "hard_link_to_denied_refused" "$out" \
    "denied path $ws/key has 2 names (hard links), 1 denied"
expect_contains "hard_link_refusal_says_how" "$out" "-samefile $ws/key"
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" \
    --deny-read "$ws/sec" -- sh -c "$steal" 2>&1)
expect_not_contains "hard_link_beneath_denied_dir_hidden" "$out" "TOPSECRET"
expect_contains "hard_link_beneath_denied_dir_refused" "$out" \
    ", in a denied path, has 3 names (hard links), 2 denied"
# Every name denied (one through a directory, one named twice): it runs,
# and the agent cannot make a new name for a masked one (EXDEV).
out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" --deny-read "$ws/key" \
    --deny-read "$ws/d" --deny-read "$ws/sec/" --deny-read "$ws/k2link" \
    --deny-read "$ws/key" --deny-read "$ws/absent" -- sh -c "$steal" 2>&1)
expect_contains "hard_links_all_denied_run" "$out" "public"
expect_not_contains "hard_links_all_denied_hidden" "$out" "TOPSECRET"
expect_contains "no_new_link_to_masked" "$out" "Invalid cross-device link"
# The agent's own sandbox.
cat > "$T/link.yaml" <<YAML
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
sandbox:
  denyRead: [ "$ws/sec" ]
YAML
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/link.yaml" \
    --workspace "$ws" -- sh -c 'cat k2link' 2>&1)
expect_not_contains "agent_hard_link_hidden" "$out" "TOPSECRET"
expect_contains "agent_hard_link_refused" "$out" \
    "cannot start the agent: $ws/sec/"
# The Seatbelt profile denies by name too.
out=$("$AIRLOCK" profile --seatbelt --manifest "$T/link.yaml" \
    --workspace "$ws" 2>&1)
expect_contains "seatbelt_hard_link_refused" "$out" \
    ", in a denied path, has 3 names (hard links), 2 denied"

# An rw agent: a masked path cannot be carried to another name by
# renaming a directory above it ("mv conf c2" left c2/secrets unmasked
# for the agent's next runner and for the broker's read_file, which
# know denied paths by name): each such directory is a mount point in
# the sandbox now (EBUSY).  And the broker writes no denied path for it:
# write_file replaced the masked .env (a deploy's credentials) and
# created files in a denied directory.  Nor does an absent name in a
# denied directory answer otherwise than a present one: "no such file"
# told which names it held.
ws="$T/ws3"
mkdir -p "$ws/conf/secrets"
echo "TOPSECRET-env" > "$ws/.env"
echo "TOPSECRET-key" > "$ws/conf/secrets/key"
chown -R 65534:65534 "$ws"
M3="$T/rw.yaml"
cat > "$M3" <<YAML
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
  - name: write_file
    input: { path: workspace_relative_path, content: string }
    output: { path: string, sha256: string, bytes: integer, changedFiles: string_list }
    sideEffect: workspace_write
    timeoutMs: 2000
agent:
  workspace: rw
sandbox:
  denyRead: [ "$ws/.env", "$ws/conf/secrets" ]
YAML
cat > "$T/agent3.sh" <<EOF
#!/bin/sh
exec 3>&-
mv conf c2 2>&1 || echo "RENAME REFUSED"
cat c2/secrets/key conf/secrets/key
for a in '{"name":"read_file","arguments":{"path":"c2/secrets/key"}}' \
    '{"name":"write_file","arguments":{"path":"conf/secrets/x","content":"EVIL=1"}}' \
    '{"name":"read_file","arguments":{"path":"conf/secrets/nokey"}}' \
    '{"name":"write_file","arguments":{"path":"conf/secrets/sub/x","content":"x"}}' \
    '{"name":"write_file","arguments":{"path":"conf/ok","content":"fine"}}'; do
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":\$a}" |
	    env -i $AIRLOCK connect | grep '"id":2'
done
EOF
chmod 755 "$T/agent3.sh"
# The agent's own sandbox binds the workspace live, where a denied file
# refuses the start (deny_read_live_bind.sh): the agent's session denies
# the directory, the broker's write_file below the file too.
sed "s|\"$ws/.env\", ||" "$M3" > "$T/rwdir.yaml"
out=$(cd "$ws" && timeout 60 "$AIRLOCK" run --manifest "$T/rwdir.yaml" \
    --workspace "$ws" -- "$T/agent3.sh" 2>&1)
out="$out
$(serve_calls "$M3" "$ws" \
    '{"name":"write_file","arguments":{"path":".env","content":"EVIL=1"}}')"
expect_contains "rename_above_denied_refused" "$out" "Device or resource busy"
expect_not_contains "rename_does_not_unmask" "$out" "TOPSECRET"
expect_eq "denied_dir_kept_its_name" "$(cat "$ws/conf/secrets/key")" \
    "TOPSECRET-key"
expect_eq "broker_write_file_keeps_denied" "$(cat "$ws/.env")" "TOPSECRET-env"
expect_eq "broker_write_file_creates_no_denied" \
    "$(ls "$ws/conf/secrets")" "key"
refused=$(printf '%s\n' "$out" | grep -c 'sandbox.denyRead hides it')
expect_eq "broker_refuses_each_denied_write" "$refused" 3
# (.env is an agent's configuration too: that rule refuses it first)
expect_contains "broker_refuses_the_denied_env" "$out" \
    "an agent's own configuration at the workspace root"
probed=$(printf '%s\n' "$out" | grep -c 'conf/secrets/[a-z]*: no such file')
expect_eq "broker_denied_names_not_probed" "$probed" 0
expect_eq "broker_writes_the_rest" "$(cat "$ws/conf/ok")" "fine"

# A denied path named through a link in the workspace: the agent
# pointed the link elsewhere (config -> fake) and the next session's
# mask, made from the name, hid fake/secrets while real/config/secrets
# showed.  Such a denyRead is refused; the path it leads to is named.
ws="$T/ws4"
mkdir -p "$ws/real/config/secrets"
echo "TOPSECRET-linked" > "$ws/real/config/secrets/key"
ln -s real/config "$ws/config"
chown -R -h 65534:65534 "$ws"
sed "s|\"$T/ws3/conf/secrets\"|\"$ws/config/secrets\"|" "$M3" > "$T/link.yaml"
cat > "$T/agent4.sh" <<'EOF'
#!/bin/sh
cat real/config/secrets/key
rm config && mkdir -p fake/secrets && ln -s fake config
EOF
chmod 755 "$T/agent4.sh"
out=$(for i in 1 2; do cd "$ws" && timeout 60 "$AIRLOCK" run --manifest \
    "$T/link.yaml" --workspace "$ws" -- "$T/agent4.sh" 2>&1; done)
expect_not_contains "deny_through_link_not_retargeted" "$out" "TOPSECRET"
expect_contains "deny_through_link_refused" "$out" "leads through the link"

# A denied file that git tracks: the sandbox refused "cat .env" and
# printed it for "git show HEAD:.env" (the index, a stash, any commit or
# pack holds it as well).  A denyRead path in a repository the sandbox
# shows is refused now, by every run and by the session, naming the
# repository, unless its metadata is denied too; so is one beneath any
# other store on its way (.hg, .jj, .sl, a submodule's .git).  An
# empty .git holds nothing (exec_manifest_policy.sh has one).
if command -v git >/dev/null 2>&1; then
	ws="$T/ws5"
	mkdir -p "$ws/sub"
	echo "TOPSECRET-tracked" > "$ws/.env"
	echo "public" > "$ws/README"
	git -C "$ws" init -q
	git -C "$ws" add .env README
	git -C "$ws" -c user.name=t -c user.email=t@t commit -qm init
	chown -R 65534:65534 "$ws"
	steal='cat .env; git -c safe.directory="*" show HEAD:.env; cat README'
	out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" \
	    --deny-read "$ws/.env" -- sh -c "$steal" 2>&1)
	expect_not_contains "git_history_hides_denied" "$out" "TOPSECRET"
	expect_contains "git_history_refused" "$out" \
	    "may be in the history of $ws/.git"
	out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" \
	    --deny-read "$ws/.env" --deny-read "$ws/.git/" -- \
	    sh -c "$steal" 2>&1)
	expect_contains "git_denied_too_runs" "$out" "public"
	expect_not_contains "git_denied_too_hides" "$out" "TOPSECRET"
	sed -e "s|$T/ws3/.env|$ws/.env|" -e "s|, \"$T/ws3/conf/secrets\"||" \
	    "$M3" > "$T/git.yaml"
	out=$(cd "$ws" && timeout 60 "$AIRLOCK" serve --manifest \
	    "$T/git.yaml" --workspace "$ws" </dev/null 2>&1)
	expect_eq "git_history_session_refused" "$?" 78
	expect_contains "git_history_session_says_how" "$out" \
	    "add $ws/.git to sandbox.denyRead too"
	mkdir "$ws/sub/.hg"
	echo "store" > "$ws/sub/.hg/requires"
	echo "TOPSECRET-hg" > "$ws/sub/key"
	out=$(cd "$ws" && "$AIRLOCK" exec --workspace "$ws" \
	    --deny-read "$ws/sub/key" --deny-read "$ws/.git" -- \
	    cat README 2>&1)
	expect_contains "nested_store_refused" "$out" \
	    "may be in the history of $ws/sub/.hg"
fi

finish
