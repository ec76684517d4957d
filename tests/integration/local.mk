# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Integration tests of the broker, the run supervisor and approvals,
# driving the built airlock binary over MCP (bash + jq).
EXTRA_DIST += tests/integration/mcp_lib.sh tests/integration/mcp_agent.py
TESTS += tests/integration/mcp_protocol.sh
EXTRA_DIST += tests/integration/mcp_protocol.sh
TESTS += tests/integration/tools.sh
EXTRA_DIST += tests/integration/tools.sh
TESTS += tests/integration/command_literal_braces.sh
EXTRA_DIST += tests/integration/command_literal_braces.sh
TESTS += tests/integration/patch_loop.sh
# The incremental workspace index (issue 14).
TESTS += tests/integration/wsindex.sh tests/integration/wsindex_mmap.sh
TESTS += tests/integration/limits_enforce.sh
EXTRA_DIST += tests/integration/limits_enforce.sh
TESTS += tests/integration/cgroup_v2_clone.sh
EXTRA_DIST += tests/integration/cgroup_v2_clone.sh
TESTS += tests/integration/cgroup_v1_born.sh
EXTRA_DIST += tests/integration/cgroup_v1_born.sh
TESTS += tests/integration/cgroup_pid_reuse.sh
EXTRA_DIST += tests/integration/cgroup_pid_reuse.sh
TESTS += tests/integration/cgroup_stale_other_ns.sh
EXTRA_DIST += tests/integration/cgroup_stale_other_ns.sh
EXTRA_DIST += tests/integration/wsindex.sh tests/integration/wsindex_mmap.sh
EXTRA_DIST += tests/integration/patch_loop.sh
TESTS += tests/integration/run_teardown.sh
EXTRA_DIST += tests/integration/run_teardown.sh
TESTS += tests/integration/approvals.sh
TESTS += tests/integration/agent_socket.sh
TESTS += tests/integration/unsafe_layout.sh
TESTS += tests/integration/broker_stall.sh
TESTS += tests/integration/slow_reader.sh
# maxParallelProcesses for every runner, approved or not.
TESTS += tests/integration/budget_parallel.sh
TESTS += tests/integration/idem_busy.sh
TESTS += tests/integration/idem_keys_memory.sh
TESTS += tests/integration/patch_read_budget.sh
TESTS += tests/integration/patch_off_loop.sh
TESTS += tests/integration/changed_paths_memory.sh
TESTS += tests/integration/job_land_status.sh
TESTS += tests/integration/job_refused_budget.sh
TESTS += tests/integration/budget_stop_jobs.sh
TESTS += tests/integration/job_end_notice.sh
TESTS += tests/integration/job_setup_failed.sh
TESTS += tests/integration/cow_secret_network.sh
TESTS += tests/integration/rw_secret_plant.sh
TESTS += tests/integration/cut_off_lands_nothing.sh
TESTS += tests/integration/fingerprint_race.sh
TESTS += tests/integration/budget_check_cut_off.sh
TESTS += tests/integration/budget_void_pass.sh
TESTS += tests/integration/budget_stop_start.sh
EXTRA_DIST += tests/integration/budget_parallel.sh
EXTRA_DIST += tests/integration/idem_busy.sh
EXTRA_DIST += tests/integration/idem_keys_memory.sh
EXTRA_DIST += tests/integration/patch_read_budget.sh
EXTRA_DIST += tests/integration/patch_off_loop.sh
EXTRA_DIST += tests/integration/changed_paths_memory.sh
EXTRA_DIST += tests/integration/job_land_status.sh
EXTRA_DIST += tests/integration/job_refused_budget.sh
EXTRA_DIST += tests/integration/budget_stop_jobs.sh
EXTRA_DIST += tests/integration/job_end_notice.sh
EXTRA_DIST += tests/integration/job_setup_failed.sh
EXTRA_DIST += tests/integration/cow_secret_network.sh
EXTRA_DIST += tests/integration/rw_secret_plant.sh
EXTRA_DIST += tests/integration/cut_off_lands_nothing.sh
EXTRA_DIST += tests/integration/fingerprint_race.sh
EXTRA_DIST += tests/integration/budget_check_cut_off.sh
EXTRA_DIST += tests/integration/budget_void_pass.sh
EXTRA_DIST += tests/integration/budget_stop_start.sh
# Secrets only for pinned code: exec and run_check.
TESTS += tests/integration/secret_grant_code.sh
EXTRA_DIST += tests/integration/secret_grant_code.sh
TESTS += tests/integration/secret_grant_module.sh
EXTRA_DIST += tests/integration/secret_grant_module.sh
# A secret changed in the store mid-session is not handed out.
TESTS += tests/integration/secret_rotated.sh
EXTRA_DIST += tests/integration/secret_rotated.sh
# A secret value with a NUL byte is never granted.
TESTS += tests/integration/secret_nul.sh
EXTRA_DIST += tests/integration/secret_nul.sh
# The digests of a file holding a granted secret are keyed.
TESTS += tests/integration/secret_digest.sh
EXTRA_DIST += tests/integration/secret_digest.sh
# A bind that holds airlock's own state (the secret store) is refused.
TESTS += tests/integration/bind_holds_state.sh
EXTRA_DIST += tests/integration/bind_holds_state.sh
# A change set too deep to walk is refused, not a crash.
TESTS += tests/integration/changeset_deep.sh
TESTS += tests/integration/changeset_long_path.sh
TESTS += tests/integration/changeset_disk_fill.sh
TESTS += tests/integration/changeset_sparse.sh
TESTS += tests/integration/changeset_unreadable.sh
EXTRA_DIST += tests/integration/changeset_deep.sh
EXTRA_DIST += tests/integration/changeset_long_path.sh
EXTRA_DIST += tests/integration/changeset_disk_fill.sh
EXTRA_DIST += tests/integration/changeset_sparse.sh
EXTRA_DIST += tests/integration/changeset_unreadable.sh
EXTRA_DIST += tests/integration/broker_stall.sh
EXTRA_DIST += tests/integration/slow_reader.sh
EXTRA_DIST += tests/integration/unsafe_layout.sh
EXTRA_DIST += tests/integration/agent_socket.sh
EXTRA_DIST += tests/integration/approvals.sh
# A raw client for the approvals control socket.
check_PROGRAMS += tests/unixclient
tests_unixclient_SOURCES = tests/unixclient.c
# Runs a command as a child subreaper and reports what it left behind.
check_PROGRAMS += tests/reaper
tests_reaper_SOURCES = tests/reaper.c
# airlock run: the agent command as typed on the host (issue 10).
TESTS += tests/integration/run_agent_bin.sh
EXTRA_DIST += tests/integration/run_agent_bin.sh
# airlock run and exec: --allow-host, --env, --ro, --rw (issue 10).
TESTS += tests/integration/run_overrides.sh
EXTRA_DIST += tests/integration/run_overrides.sh
# airlock run as a user other than root: a per-user agent home (issue 10).
TESTS += tests/integration/run_nonroot_home.sh
EXTRA_DIST += tests/integration/run_nonroot_home.sh
# Terminal-safe output: agent bytes reach a person escaped (issue 11).
TESTS += tests/integration/terminal_safe.sh
EXTRA_DIST += tests/integration/terminal_safe.sh
# The output layer: capped results, artifacts, ranges (issue 13).
TESTS += tests/integration/output_layer.sh
EXTRA_DIST += tests/integration/output_layer.sh
# Background jobs, pushed events, file changes (issue 13, items 4-6).
TESTS += tests/integration/jobs.sh
EXTRA_DIST += tests/integration/jobs.sh
TESTS += tests/integration/jobs_redaction.sh
EXTRA_DIST += tests/integration/jobs_redaction.sh
TESTS += tests/integration/secrets_wrapped.sh
EXTRA_DIST += tests/integration/secrets_wrapped.sh
TESTS += tests/integration/secrets_encoded.sh
EXTRA_DIST += tests/integration/secrets_encoded.sh
TESTS += tests/integration/secrets_transformed.sh
EXTRA_DIST += tests/integration/secrets_transformed.sh
TESTS += tests/integration/secrets_shifted.sh
EXTRA_DIST += tests/integration/secrets_shifted.sh
TESTS += tests/integration/secrets_escaped.sh
EXTRA_DIST += tests/integration/secrets_escaped.sh
TESTS += tests/integration/secrets_grouped.sh
EXTRA_DIST += tests/integration/secrets_grouped.sh
TESTS += tests/integration/secrets_twice.sh
EXTRA_DIST += tests/integration/secrets_twice.sh
TESTS += tests/integration/secrets_indented.sh
EXTRA_DIST += tests/integration/secrets_indented.sh
TESTS += tests/integration/jobs_events_redaction.sh
EXTRA_DIST += tests/integration/jobs_events_redaction.sh
TESTS += tests/integration/file_changes.sh
EXTRA_DIST += tests/integration/file_changes.sh
# Pinned code: approvals, gates and secrets bound to the code that runs (issue 11).
TESTS += tests/integration/pinned_code.sh
EXTRA_DIST += tests/integration/pinned_code.sh
# Runner writes are a change set the broker checks and applies (issue 12).
TESTS += tests/integration/change_set.sh
EXTRA_DIST += tests/integration/change_set.sh
# make demo, as a newcomer runs it.
TESTS += tests/integration/demo.sh
EXTRA_DIST += tests/integration/demo.sh
# Change sets as an ordinary user (issue 12).
TESTS += tests/integration/change_set_nonroot.sh
EXTRA_DIST += tests/integration/change_set_nonroot.sh
# Crash-safe change-set apply: killed mid-apply, recovered on the next
# start (issue 12).
TESTS += tests/integration/apply_crash.sh
EXTRA_DIST += tests/integration/apply_crash.sh
TESTS += tests/integration/apply_failed_undone.sh
EXTRA_DIST += tests/integration/apply_failed_undone.sh
# airlock exec through the overlay and the write policy (issue 12).
TESTS += tests/integration/exec_changeset.sh
TESTS += tests/integration/editor_settings.sh
EXTRA_DIST += tests/integration/editor_settings.sh
EXTRA_DIST += tests/integration/exec_changeset.sh
TESTS += tests/integration/changeset_bare_repo.sh
EXTRA_DIST += tests/integration/changeset_bare_repo.sh
TESTS += tests/integration/changeset_hg.sh
TESTS += tests/integration/audit_land_unrecorded.sh
TESTS += tests/integration/cancel.sh
EXTRA_DIST += tests/integration/cancel.sh
TESTS += tests/integration/cancel_states.sh
EXTRA_DIST += tests/integration/cancel_states.sh
EXTRA_DIST += tests/integration/audit_land_unrecorded.sh
EXTRA_DIST += tests/integration/changeset_hg.sh
TESTS += tests/integration/forged_journal.sh tests/integration/rw_special_bits.sh
EXTRA_DIST += tests/integration/forged_journal.sh \
	tests/integration/rw_special_bits.sh
TESTS += tests/integration/overlay_xattr_planted.sh
EXTRA_DIST += tests/integration/overlay_xattr_planted.sh
TESTS += tests/integration/budget_stall.sh tests/integration/land_stall.sh \
	tests/integration/gate_digest_race.sh tests/integration/gate_agent_writes.sh
EXTRA_DIST += tests/integration/budget_stall.sh tests/integration/land_stall.sh \
	tests/integration/gate_digest_race.sh tests/integration/gate_agent_writes.sh
# A read-only agent's write through a workspace file's other name (a
# hard link) while a check or an approved run runs, or before a tool
# granted a secret runs it.
TESTS += tests/integration/gate_hard_link.sh \
	tests/integration/approval_hard_link.sh \
	tests/integration/pinned_hard_link.sh
EXTRA_DIST += tests/integration/gate_hard_link.sh \
	tests/integration/approval_hard_link.sh \
	tests/integration/pinned_hard_link.sh
# ... which counts only where the agent writes the other name: a store
# it cannot see leaves approvals asked and checks counted.
TESTS += tests/integration/linked_store_outside.sh
EXTRA_DIST += tests/integration/linked_store_outside.sh
# ... and every linked file counts once an escalation grants a runner a
# write no walk judged.
TESTS += tests/integration/escalation_linked.sh
EXTRA_DIST += tests/integration/escalation_linked.sh
# An agent's own edits between failing checks are patch attempts; a
# cancelled check failed.
TESTS += tests/integration/gate_agent_edits.sh \
	tests/integration/check_cancelled.sh
EXTRA_DIST += tests/integration/gate_agent_edits.sh \
	tests/integration/check_cancelled.sh
# A write through a shared mapping while a check ran (broker/wsindex.h's seal).
TESTS += tests/integration/gate_mmap_run.sh
EXTRA_DIST += tests/integration/gate_mmap_run.sh
TESTS += tests/integration/symlink_chain.sh
EXTRA_DIST += tests/integration/symlink_chain.sh
# What lands besides names and bytes: modes, attributes, times; what a
# commit's --digest binds.
TESTS += tests/integration/changeset_meta.sh
EXTRA_DIST += tests/integration/changeset_meta.sh
# The broker's own writes, killed half way: rolled back on the next start.
TESTS += tests/integration/wswrite_crash.sh
EXTRA_DIST += tests/integration/wswrite_crash.sh
# Budgets counted from change sets and broker writes alike (issue 12).
TESTS += tests/integration/changeset_budget.sh
EXTRA_DIST += tests/integration/changeset_budget.sh
# A broker write is counted by the file it lands on: "./requirements.txt"
# or a link to "." is the dependency file.
TESTS += tests/integration/budget_path_alias.sh
EXTRA_DIST += tests/integration/budget_path_alias.sh
TESTS += tests/integration/patch_same_file.sh
EXTRA_DIST += tests/integration/patch_same_file.sh
TESTS += tests/integration/write_refused_nonroot.sh
EXTRA_DIST += tests/integration/write_refused_nonroot.sh
TESTS += tests/integration/land_cut_off.sh
EXTRA_DIST += tests/integration/land_cut_off.sh
TESTS += tests/integration/lander_lost.sh
EXTRA_DIST += tests/integration/lander_lost.sh
TESTS += tests/integration/patch_result_too_large.sh
EXTRA_DIST += tests/integration/patch_result_too_large.sh
TESTS += tests/integration/write_refused_budget.sh
EXTRA_DIST += tests/integration/write_refused_budget.sh
# airlock profile --seatbelt: goldens and the SBPL lint (issue 19).
TESTS += tests/integration/seatbelt_profiles.sh
EXTRA_DIST += tests/integration/seatbelt_profiles.sh tests/seatbelt
# The Seatbelt profile attacked: a model of Seatbelt judges an agent's steps.
TESTS += tests/integration/seatbelt_escapes.sh
EXTRA_DIST += tests/integration/seatbelt_escapes.sh
# The agent's home (agent.homeReadOnly, agent.homeScratch) in the Seatbelt
# profile of each shipped agent profile, attacked through a dotfiles link.
TESTS += tests/integration/seatbelt_agent_home.sh
EXTRA_DIST += tests/integration/seatbelt_agent_home.sh
# Issue 20: tests that kill mutants nothing else reached.
TESTS += tests/integration/audit_splice.sh tests/integration/approver_default.sh
EXTRA_DIST += tests/integration/audit_splice.sh tests/integration/approver_default.sh
TESTS += tests/integration/audit_session_moved.sh
EXTRA_DIST += tests/integration/audit_session_moved.sh
TESTS += tests/integration/install.sh
EXTRA_DIST += tests/integration/install.sh
TESTS += tests/integration/cli.sh
EXTRA_DIST += tests/integration/cli.sh
TESTS += tests/integration/exec_options.sh
EXTRA_DIST += tests/integration/exec_options.sh
TESTS += tests/integration/bind_link.sh
EXTRA_DIST += tests/integration/bind_link.sh
TESTS += tests/integration/secret_change_set.sh
EXTRA_DIST += tests/integration/secret_change_set.sh
TESTS += tests/integration/budget_elapsed.sh
EXTRA_DIST += tests/integration/budget_elapsed.sh
TESTS += tests/integration/exec_audit_gate.sh
EXTRA_DIST += tests/integration/exec_audit_gate.sh
TESTS += tests/integration/bench_pipe_runs.sh
TESTS += tests/integration/bench_cpu_per_run_runs.sh
EXTRA_DIST += tests/integration/bench_pipe_runs.sh
EXTRA_DIST += tests/integration/bench_cpu_per_run_runs.sh
TESTS += tests/integration/exec_end_written.sh
EXTRA_DIST += tests/integration/exec_end_written.sh
TESTS += tests/integration/exec_denials_suggest.sh
EXTRA_DIST += tests/integration/exec_denials_suggest.sh
TESTS += tests/integration/audit_dirs_synced.sh
EXTRA_DIST += tests/integration/audit_dirs_synced.sh
TESTS += tests/integration/exec_writer_after_exit.sh
EXTRA_DIST += tests/integration/exec_writer_after_exit.sh
TESTS += tests/integration/exec_traced_pidns.sh
EXTRA_DIST += tests/integration/exec_traced_pidns.sh
TESTS += tests/integration/exec_writer_killed.sh
EXTRA_DIST += tests/integration/exec_writer_killed.sh
# One unmount in the child, every helper reaped, the writer's priority.
TESTS += tests/integration/exec_lean_start.sh
EXTRA_DIST += tests/integration/exec_lean_start.sh
TESTS += tests/integration/man_values.sh
EXTRA_DIST += tests/integration/man_values.sh tests/integration/man_values.py
# Copy-on-write agent sessions: run --cow/--resume, diff, commit, discard.
TESTS += tests/integration/cow_session.sh tests/integration/cow_session_nonroot.sh \
	tests/integration/cow_gate.sh tests/integration/cow_runner_git.sh \
	tests/integration/cow_runner_nested_git.sh tests/integration/cow_runner_hookspath.sh \
	tests/integration/cow_runner_lintstaged.sh
EXTRA_DIST += tests/integration/cow_session.sh tests/integration/cow_session_nonroot.sh \
	tests/integration/cow_gate.sh tests/integration/cow_runner_git.sh \
	tests/integration/cow_runner_nested_git.sh tests/integration/cow_runner_hookspath.sh \
	tests/integration/cow_runner_lintstaged.sh
# Approvals for teams and fleets (issue 16).
EXTRA_DIST += tests/integration/approval_lib.sh
EXTRA_DIST += tests/integration/cow_lib.sh
EXTRA_DIST += tests/integration/secrets_lib.sh
TESTS += tests/integration/approval_groups.sh
EXTRA_DIST += tests/integration/approval_groups.sh
TESTS += tests/integration/approval_inbox_shared.sh
EXTRA_DIST += tests/integration/approval_inbox_shared.sh
TESTS += tests/integration/approval_runtime_planted.sh
EXTRA_DIST += tests/integration/approval_runtime_planted.sh
TESTS += tests/integration/approval_tokens.sh
TESTS += tests/integration/cow_commit_guards.sh
TESTS += tests/integration/cow_diff_label.sh
EXTRA_DIST += tests/integration/cow_diff_label.sh
EXTRA_DIST += tests/integration/cow_commit_guards.sh
EXTRA_DIST += tests/integration/approval_tokens.sh
TESTS += tests/integration/approval_review.sh
EXTRA_DIST += tests/integration/approval_review.sh
# What the approver is shown is what runs, all of it (red team rt-mcp).
TESTS += tests/integration/approval_hidden.sh
EXTRA_DIST += tests/integration/approval_hidden.sh
TESTS += tests/integration/approval_lookalike.sh
EXTRA_DIST += tests/integration/approval_lookalike.sh
TESTS += tests/integration/approval_runs_later.sh
EXTRA_DIST += tests/integration/approval_runs_later.sh
TESTS += tests/integration/approval_shell_runs_later.sh
EXTRA_DIST += tests/integration/approval_shell_runs_later.sh
TESTS += tests/integration/escalation_void.sh
EXTRA_DIST += tests/integration/escalation_void.sh
TESTS += tests/integration/approval_refusal_flood.sh
EXTRA_DIST += tests/integration/approval_refusal_flood.sh
# Deployment: the systemd unit and tmpfiles (issue 16 item 5).
TESTS += tests/integration/deploy_systemd.sh
EXTRA_DIST += tests/integration/deploy_systemd.sh contrib/deploy/airlock@.service \
	contrib/deploy/airlock.tmpfiles
TESTS += tests/integration/deploy_podman.sh
EXTRA_DIST += tests/integration/deploy_podman.sh contrib/deploy/kubernetes-job.yaml
TESTS += tests/integration/manifest_signed.sh
EXTRA_DIST += tests/integration/manifest_signed.sh
# issue 15: host key, certified sessions, verify --key over a directory.
TESTS += tests/integration/audit_keys.sh
EXTRA_DIST += tests/integration/audit_keys.sh
TESTS += tests/integration/audit_fields.sh
EXTRA_DIST += tests/integration/audit_fields.sh
TESTS += tests/integration/audit_ship.sh
EXTRA_DIST += tests/integration/audit_ship.sh
TESTS += tests/integration/audit_sessions.sh
EXTRA_DIST += tests/integration/audit_sessions.sh
TESTS += tests/integration/audit_approval_unrecorded.sh
EXTRA_DIST += tests/integration/audit_approval_unrecorded.sh
TESTS += tests/integration/control_slow_reader.sh
EXTRA_DIST += tests/integration/control_slow_reader.sh
TESTS += tests/integration/approval_workspace.sh
EXTRA_DIST += tests/integration/approval_workspace.sh
TESTS += tests/integration/approval_run_still.sh
EXTRA_DIST += tests/integration/approval_run_still.sh
TESTS += tests/integration/approval_run_still_agent.sh
EXTRA_DIST += tests/integration/approval_run_still_agent.sh
TESTS += tests/integration/gate_mode_bits.sh
EXTRA_DIST += tests/integration/gate_mode_bits.sh
TESTS += tests/integration/approval_check_workspace.sh
EXTRA_DIST += tests/integration/approval_check_workspace.sh
TESTS += tests/integration/approval_unwatched.sh
EXTRA_DIST += tests/integration/approval_unwatched.sh
# A root .airlock-* name is watched for a grant too (counted, not reported).
TESTS += tests/integration/approval_own_names.sh
EXTRA_DIST += tests/integration/approval_own_names.sh
TESTS += tests/integration/cow_runner_race.sh
EXTRA_DIST += tests/integration/cow_runner_race.sh
TESTS += tests/integration/audit_record_too_large.sh
EXTRA_DIST += tests/integration/audit_record_too_large.sh
TESTS += tests/integration/audit_verify_paint.sh
EXTRA_DIST += tests/integration/audit_verify_paint.sh
TESTS += tests/integration/audit_refused_calls.sh
EXTRA_DIST += tests/integration/audit_refused_calls.sh
TESTS += tests/integration/paths.sh
EXTRA_DIST += tests/integration/paths.sh
# The egress proxy attacked from inside a real sandbox: an allowed name
# that resolves to an address of the machine's own interfaces.
TESTS += tests/integration/proxy_sandboxed.sh
EXTRA_DIST += tests/integration/proxy_sandboxed.sh
# ... and to an address the kernel delivers locally that is not the
# source it picks for it: a secondary address, a prefix on lo, AnyIP.
TESTS += tests/integration/proxy_own_local.sh
EXTRA_DIST += tests/integration/proxy_own_local.sh
# The proxy has a uid of its own: taken over, it cannot reach a sandbox
# (/proc/PID/environ, mem, root; signals); uids it may not have.
TESTS += tests/integration/proxy_own_uid.sh
EXTRA_DIST += tests/integration/proxy_own_uid.sh
# A name under a wildcard grant that does not exist is not looked up
# again with resolv.conf's search domain (another host).
TESTS += tests/integration/proxy_dns_search.sh
EXTRA_DIST += tests/integration/proxy_dns_search.sh
# Names that never resolve hold a resolver process for at most 10 s, and
# one sandbox's cannot hold them all: other lookups are answered.
TESTS += tests/integration/proxy_dns_hang.sh
EXTRA_DIST += tests/integration/proxy_dns_hang.sh
# airlock exec's egress proxy is stopped after the command, killed if it
# does not stop: the exec ends, with its exec_end.
TESTS += tests/integration/exec_proxy_stop.sh
EXTRA_DIST += tests/integration/exec_proxy_stop.sh
# The proxy out of descriptors does not spin on its readable listener,
# and serves the queued connection once descriptors are free.
TESTS += tests/integration/proxy_emfile.sh
EXTRA_DIST += tests/integration/proxy_emfile.sh
# Connections past the proxy's cap, closed with no reply, are counted:
# records plus counts equal the connections a sandbox opened.
TESTS += tests/integration/proxy_over_cap.sh
EXTRA_DIST += tests/integration/proxy_over_cap.sh
# A sandbox that spends its uid's pipe budget (the proxy's uid too) does
# not leave the proxy relaying other sessions through 8 KiB pipes.
TESTS += tests/integration/proxy_pipe_pages.sh
TESTS += tests/integration/user_counts_shared.sh
EXTRA_DIST += tests/integration/proxy_pipe_pages.sh
EXTRA_DIST += tests/integration/user_counts_shared.sh
# A hooks directory of git's config (core.hooksPath, husky's .husky/_)
# is the git rule's: a planted hook is refused.
TESTS += tests/integration/changeset_hookspath.sh
EXTRA_DIST += tests/integration/changeset_hookspath.sh
# An exec_end larger than a datagram (a change set's refusals) is
# recorded whole, not as {}.
TESTS += tests/integration/exec_end_large.sh
TESTS += tests/integration/exec_spare.sh
EXTRA_DIST += tests/integration/exec_end_large.sh
EXTRA_DIST += tests/integration/exec_spare.sh
# What a spare keeps from one exec for the next: cgroups and a network
# namespace, and the attacks on them (exec_audit.c, runner/netns.c).
TESTS += tests/integration/exec_reuse.sh
EXTRA_DIST += tests/integration/exec_reuse.sh
TESTS += tests/integration/exec_reuse_v2.sh
EXTRA_DIST += tests/integration/exec_reuse_v2.sh
TESTS += tests/integration/serve_reply_batch.sh
EXTRA_DIST += tests/integration/serve_reply_batch.sh
# A flood of waiting calls or commands kills no broker (its loop's watches).
TESTS += tests/integration/call_flood.sh
EXTRA_DIST += tests/integration/call_flood.sh
# An agent refused in a loop is cut off (runBudget.maxRefusedCalls).
TESTS += tests/integration/refused_flood.sh
EXTRA_DIST += tests/integration/refused_flood.sh
# A host service's unix socket in the workspace: no sandbox reaches it
# (a read-only runner's overlay; the agent's masks).
TESTS += tests/integration/workspace_socket.sh
EXTRA_DIST += tests/integration/workspace_socket.sh
TESTS += tests/integration/agent_project_config.sh
TESTS += tests/integration/agent_own_tools.sh
EXTRA_DIST += tests/integration/agent_project_config.sh
EXTRA_DIST += tests/integration/agent_own_tools.sh
TESTS += tests/integration/agent_config_planted.sh
# The agent's own configuration in its home (agent.homeReadOnly).
TESTS += tests/integration/agent_home_config.sh
EXTRA_DIST += tests/integration/agent_home_config.sh
EXTRA_DIST += tests/integration/agent_config_planted.sh
# A hard link to a denyRead file made while a session runs: search
# leaves it out, matched or not (no note telling a guess right).
TESTS += tests/integration/search_hard_link.sh
EXTRA_DIST += tests/integration/search_hard_link.sh
# The modes a run sets: special bits refused where the run set them, an
# inherited setgid bit and a world-write bit dropped and each drop told.
TESTS += tests/integration/changeset_mode_bits.sh
EXTRA_DIST += tests/integration/changeset_mode_bits.sh
TESTS += tests/integration/changeset_root_mode.sh
EXTRA_DIST += tests/integration/changeset_root_mode.sh
TESTS += tests/integration/changeset_owner.sh
EXTRA_DIST += tests/integration/changeset_owner.sh
TESTS += tests/integration/symlink_length.sh
EXTRA_DIST += tests/integration/symlink_length.sh
# The group of a file a run makes in a setgid directory: the directory's.
TESTS += tests/integration/changeset_setgid_group.sh
EXTRA_DIST += tests/integration/changeset_setgid_group.sh
# Records listing a run's names fit a line of the log as JSON writes them.
TESTS += tests/integration/changeset_record_names.sh
EXTRA_DIST += tests/integration/changeset_record_names.sh
# A run whose set waits to land counts for maxParallelProcesses.
TESTS += tests/integration/budget_landq.sh
EXTRA_DIST += tests/integration/budget_landq.sh
# A tunnel's TLS server name must be its CONNECT host.
TESTS += tests/integration/proxy_sni.sh
EXTRA_DIST += tests/integration/proxy_sni.sh
TESTS += tests/integration/proxy_tls_tricks.sh
TESTS += tests/integration/proxy_tls_reneg.sh
TESTS += tests/integration/proxy_starttls.sh
TESTS += tests/integration/proxy_tls_resume.sh
EXTRA_DIST += tests/integration/proxy_tls_tricks.sh
EXTRA_DIST += tests/integration/proxy_tls_reneg.sh
EXTRA_DIST += tests/integration/proxy_starttls.sh
EXTRA_DIST += tests/integration/proxy_tls_resume.sh
