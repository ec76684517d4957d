#!/bin/sh
# The same attacks from inside the agent's sandbox of "airlock run": the
# probe is the agent.  Each must fail with the errno of the layer meant
# to stop it, and the agent must not reach the broker's state.
. "$top_srcdir/tests/lib.sh"

export AIRLOCK_HOME="$T/state" AIRLOCK_RUNTIME_DIR="$T/run"
chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws/.git/hooks"
cp "$top_builddir/tests/escape/probe" "$T/probe"
chmod 755 "$T/probe"

agent() {
	out=$("$AIRLOCK" run --workspace "$ws" -- "$T/probe" "$@" 2>&1)
	status=$?
}

agent write /usr/airlock-escape
expect_contains "agent_cannot_write_system_dirs" "$out" "write: errno=EROFS"
agent write "$ws/new-file"
expect_contains "agent_workspace_is_read_only" "$out" "write: errno=EROFS"
check "agent_wrote_nothing_in_the_workspace" test ! -e "$ws/new-file"
agent write "$ws/.git/hooks/pre-commit"
expect_contains "agent_cannot_write_git" "$out" "write: errno=EROFS"
# A real sealed secret: the key file exists on the host, and the agent,
# asking for the same path, does not find it.
printf '%s' 'agent-must-not-see-4242' | "$AIRLOCK" secret set PROBE_TOKEN
check "the secret's key file exists on the host" test -s "$AIRLOCK_HOME/secrets.key"
agent read "$AIRLOCK_HOME/secrets.key"
expect_contains "agent_cannot_see_the_state_dir" "$out" "read: errno=ENOENT"
agent ptrace $$
expect_contains "agent_ptrace_of_host_refused" "$out" "ptrace: errno=EPERM"
agent kill $$
expect_contains "agent_cannot_signal_the_host" "$out" "kill: errno=ESRCH"
for sc in unshare setns keyctl bpf perf_event_open userfaultfd io_uring_setup mount; do
	agent syscall "$sc" 64
	expect_contains "agent_seccomp_refuses_${sc}" "$out" "$sc: errno=EPERM"
done
agent syscall getpid x32
expect_eq "agent_x32_abi_killed" "$status" 159
agent ids
expect_contains "agent_runs_unprivileged" "$out" "euid=65534"
finish
