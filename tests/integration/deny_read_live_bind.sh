#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# A denyRead path in a bind the host writes while the agent runs (the
# workspace of an agent.workspace ro or rw agent, bound live; a --rw or
# readWrite entry; agent.home) is masked by a mount on the name's dentry
# at the start.  A file the host made there later (absent at the start:
# nothing to mount on) and a file renamed over a masked one on the host
# (the kernel detaches the mask from the replaced dentry) were read by
# the agent; `airlock run` only warned of the absent ones.  Such a path
# now refuses the start, naming it, the bind and what hides it.  A
# denied directory that exists keeps its mask whatever is made or
# renamed inside it, and still runs; the host removing or moving it (or
# a directory above it) kills the sandbox.
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws/secrets" "$T/rwd"
echo public > "$ws/README"
echo KEY-OLD > "$ws/secrets/key"
echo TOK-OLD > "$T/rwd/tok"
chown -R 65534:65534 "$ws" "$T/rwd"
mk="live-$$"

# manifest FILE AGENT-LINES DENIED...: a manifest whose agent section is
# AGENT-LINES and whose denyRead lists DENIED.
manifest() {
	f=$1 agent=$2
	shift 2
	deny=$(printf '"%s", ' "$@")
	cat > "$f" <<EOF
tools:
  - name: read_file
    input: { path: workspace_relative_path }
    output: { content: string, sha256: string }
    sideEffect: none
    timeoutMs: 2000
$agent
sandbox:
  denyRead: [ ${deny%, } ]
EOF
}

# host_acts N CMDS: once the agent's waiting step N is up (or the run
# has ended), the host runs CMDS and says go.
host_acts() {
	i=0
	while ! pgrep -f "$mk-$1" >/dev/null && [ ! -e "$T/done" ] &&
	    [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sh -c "$2"
	chown -R 65534:65534 "$ws" "$T/rwd" 2>/dev/null
	# A negative dentry left by a lookup at the start hides a new file
	# only until the kernel drops it, as it may at any time.
	echo 2 > /proc/sys/vm/drop_caches 2>/dev/null
	echo go > "$ws/go"
}

# attack N MANIFEST HOST-CMDS FILES [ARGS]: the agent waits until the host
# has run HOST-CMDS, then reads FILES; prints all that airlock printed.
attack() {
	n=$1 m=$2 cmds=$3 files=$4
	shift 4
	rm -f "$ws/go" "$T/done"
	cat > "$T/agent$n.sh" <<EOF
#!/bin/sh
exec 3>&-
sh -c 'while [ ! -e "$ws/go" ]; do sleep 0.05; done' "$mk-$n"
echo "AGENT$n: \$(cat $files 2>&1)"
EOF
	chmod 755 "$T/agent$n.sh"
	host_acts "$n" "$cmds" &
	AIRLOCK_HOME="$T/home" AIRLOCK_RUNTIME_DIR="$T/run" timeout 60 \
	    "$AIRLOCK" run --manifest "$m" --workspace "$ws" "$@" -- \
	    "$T/agent$n.sh" 2>&1
	touch "$T/done"
	wait
}

# (1) A .env absent at the start, written by the user while the (ro,
# the default) agent runs.
manifest "$T/m1.yaml" "" "$ws/.env"
out=$(attack 1 "$T/m1.yaml" "echo ENV-SECRET-1 > $ws/.env" "$ws/.env")
expect_not_contains "absent_in_live_workspace_not_read" "$out" "ENV-SECRET-1"
expect_contains "absent_in_live_workspace_refused" "$out" \
    "cannot start the agent: denied path $ws/.env is absent from $ws, bound live: a file made there later would not be hidden; use agent.workspace: cow (--cow), or deny an existing directory that holds it"
expect_contains "absent_in_live_workspace_audited" \
    "$(cat "$T"/home/sessions/*/audit.jsonl)" \
    '"event":"run_refused","fields":{"reason":"denied path '"$ws"'/.env is absent from '

# (2) A masked .env replaced as editors and credential tools write one:
# a new file renamed over it, in an rw agent's workspace.
echo ENV-OLD > "$ws/.env"
chown 65534:65534 "$ws/.env"
manifest "$T/m2.yaml" "agent: { workspace: rw }" "$ws/.env"
out=$(attack 2 "$T/m2.yaml" \
    "echo ENV-SECRET-2 > $ws/.env.new && mv $ws/.env.new $ws/.env" "$ws/.env")
expect_not_contains "renamed_over_in_live_workspace_not_read" "$out" \
    "ENV-SECRET-2"
expect_contains "renamed_over_in_live_workspace_refused" "$out" \
    "cannot start the agent: denied path $ws/.env is not a directory, in $ws, bound live: one renamed over it on the host would not be hidden"

# (3) The same in an entry bound read-write (--rw).
manifest "$T/m3.yaml" "" "$T/rwd/tok"
out=$(attack 3 "$T/m3.yaml" \
    "echo TOK-SECRET-3 > $T/rwd/tok.new && mv $T/rwd/tok.new $T/rwd/tok" \
    "$T/rwd/tok" --rw "$T/rwd")
expect_not_contains "renamed_over_in_rw_entry_not_read" "$out" "TOK-SECRET-3"
expect_contains "renamed_over_in_rw_entry_refused" "$out" \
    "denied path $T/rwd/tok is not a directory, in $T/rwd, bound live"
expect_contains "rw_entry_names_the_fix" "$out" \
    "bind it read-only (readOnly, --ro)"

# airlock exec binds a --rw entry live too.
out=$(AIRLOCK_HOME="$T/home" "$AIRLOCK" exec --workspace "$ws" --rw "$T/rwd" \
    --deny-read "$T/rwd/new" -- cat "$T/rwd/tok" 2>&1)
expect_contains "exec_absent_in_rw_entry_refused" "$out" \
    "denied path $T/rwd/new is absent from $T/rwd, bound live"
expect_not_contains "exec_refused_before_the_command" "$out" "TOK-"

# (4) A token directory absent at the start in agent.home, made by a
# login while the agent runs.
manifest "$T/m4.yaml" "agent: { home: $T/ahome }" "$T/ahome/gh"
out=$(attack 4 "$T/m4.yaml" \
    "mkdir -p $T/ahome/gh && echo GH-SECRET-4 > $T/ahome/gh/hosts" \
    "$T/ahome/gh/hosts")
expect_not_contains "absent_in_agent_home_not_read" "$out" "GH-SECRET-4"
expect_contains "absent_in_agent_home_refused" "$out" \
    "denied path $T/ahome/gh is absent from $T/ahome, bound live"

# (5) A denied directory that exists: its mask is on the directory, which
# what is made or renamed inside it does not detach.  It still runs.
manifest "$T/m5.yaml" "" "$ws/secrets"
rm -f "$ws/.env"
out=$(attack 5 "$T/m5.yaml" \
    "echo NEW-SECRET-5 > $ws/secrets/new && echo KEY-SECRET-5 > $ws/secrets/k.tmp && mv $ws/secrets/k.tmp $ws/secrets/key" \
    "$ws/README $ws/secrets/new $ws/secrets/key")
expect_contains "denied_dir_runs" "$out" "AGENT5: public"
expect_contains "denied_dir_masked" "$out" "secrets/new: Permission denied"
expect_not_contains "denied_dir_hides_new_files" "$out" "NEW-SECRET-5"
expect_not_contains "denied_dir_hides_renamed_files" "$out" "KEY-SECRET-5"

# (6) The denied directory itself replaced on the host while the agent
# runs: moved away, removed, or an ancestor below the bind moved, and
# another made at its name.  Its mask went with the old one, and the
# agent read the new key (the second with the old one held open on the
# host, as a shell's working directory would: its own removal event
# waits for that; the holder has it open before the removal, or the
# event came at once and the parent's watch went untested).  The sandbox is killed at the host's move now, and
# the agent's end records why.
mkdir -p "$ws/conf/secrets"
echo KEY-OLD > "$ws/conf/secrets/key"
chown -R 65534:65534 "$ws"
manifest "$T/m6.yaml" "" "$ws/secrets" "$ws/conf/secrets"
n=6
for how in "mv $ws/secrets $ws/secrets.old && mkdir $ws/secrets" \
    "( exec 9<$ws/secrets; : >$T/held; exec sleep 3 ) & while [ ! -e $T/held ]; do sleep 0.01; done; rm -f $T/held; rm -rf $ws/secrets && mkdir $ws/secrets" \
    "mv $ws/conf $ws/conf.old && mkdir -p $ws/conf/secrets"; do
	out=$(attack $n "$T/m6.yaml" \
	    "$how && echo NEW-SECRET-$n > $ws/secrets/key && echo NEW-SECRET-$n > $ws/conf/secrets/key" \
	    "$ws/secrets/key $ws/conf/secrets/key")
	expect_not_contains "replaced_denied_dir_not_read_$n" "$out" \
	    "NEW-SECRET-$n"
	expect_contains "replaced_denied_dir_stops_the_agent_$n" "$out" \
	    "the agent's sandbox was killed: the host removed or moved"
	rm -rf "$ws/secrets.old" "$ws/conf.old" "$ws/secrets" "$ws/conf"
	mkdir -p "$ws/secrets" "$ws/conf/secrets"
	echo KEY-OLD > "$ws/secrets/key"
	echo KEY-OLD > "$ws/conf/secrets/key"
	chown -R 65534:65534 "$ws"
	n=$((n + 1))
done
expect_contains "replaced_denied_dir_audited" \
    "$(cat "$T"/home/sessions/*/audit.jsonl)" \
    '"unmasked":"'"$ws"'/conf'
finish
