/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest: the model of an airlock manifest, and its YAML loader.
 *
 * The model is plain data, read-only once loaded, like a daemon's parsed
 * configuration: every module reads it, only manifest.c builds or frees it.
 * The seed's Workboard manifest (examples/workboard.yaml) loads unmodified;
 * everything airlock adds is optional and has a safe default.
 */
#ifndef AIRLOCK_MANIFEST_H
#define AIRLOCK_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "policy/types.h"

struct shell_rules;

enum side_effect {
	SIDE_EFFECT_NONE,
	SIDE_EFFECT_WORKSPACE_WRITE,
	SIDE_EFFECT_SANDBOX_PROCESS,
	SIDE_EFFECT_NETWORK,
	SIDE_EFFECT_EXTERNAL,
	SIDE_EFFECT_COUNT
};

enum authorization {
	AUTHZ_ALLOW,
	AUTHZ_DENY,
	AUTHZ_APPROVAL,
};

/* What the broker does for a tool: a built-in action or a command. */
enum tool_action {
	ACTION_READ_FILE,
	ACTION_WRITE_FILE,
	ACTION_APPLY_PATCH,
	ACTION_LIST_FILES,
	ACTION_SEARCH,
	ACTION_RUN_CHECK,
	ACTION_EXEC,
	ACTION_REQUEST_APPROVAL,
	ACTION_COMMAND,		/* argv template filled from typed arguments */
	ACTION_READ_OUTPUT,	/* a range or a grep of this session's artifact */
	ACTION_JOB_OUTPUT,	/* what a background job printed since the last read */
	ACTION_JOB_KILL,	/* ends a background job */
};

/* A background job's event rule (tools[].jobs.events[]). */
#define JOB_EXIT_NONE		0
#define JOB_EXIT_ANY		1	/* exit: any */
#define JOB_EXIT_NONZERO	2	/* exit: nonzero */
struct job_event_rule {
	char	*match;		/* POSIX ERE on each output line, or NULL */
	int	 exit;		/* JOB_EXIT_* */
};

/*
 * tools[].jobs: the tool accepts a blockMs argument (0..max_block_ms); a
 * run still going after it becomes a background job (broker/jobs.h).
 */
struct tool_jobs {
	int64_t			 max_block_ms;	/* 0: no jobs */
	struct job_event_rule	*events;
	size_t			 nevents;
};

struct secret_grant {
	char	*name;		/* name in the sealed store */
	char	*env;		/* environment variable in the runner, or NULL */
	char	*file;		/* path inside the runner, or NULL */
};

/*
 * What a sandbox may reach through the egress proxy.  |hosts| is the whole
 * allowlist the proxy is given: the "network" entries ("*.example.com:443";
 * an IP literal there is a public address), followed by copies of the
 * "allowAddresses" entries, the explicit "IP:PORT" rules that are the only
 * way to reach a loopback, private, link-local or metadata address.
 * |addresses| holds those again, for printing.
 */
struct net_allow {
	char	**hosts;	/* NULL-terminated */
	size_t	  nhosts;
	char	**addresses;	/* NULL-terminated, the tail of |hosts| */
	size_t	  naddresses;
};

struct tool {
	char			*name;
	char			*description;	/* may be NULL */
	struct type_field	*input;
	size_t			 ninput;
	struct type_field	*output;
	size_t			 noutput;
	enum side_effect	 side_effect;
	int64_t			 timeout_ms;
	enum authorization	 authorization;
	enum tool_action	 action;
	char			**command;	/* ACTION_COMMAND/EXEC: argv
						   template, NULL-terminated */
	size_t			 ncommand;
	double			 cost_usd;	/* charged per call */
	struct secret_grant	*secrets;
	size_t			 nsecrets;
	struct net_allow	 network;
	int64_t			 inline_chars;	/* 0: the manifest's output.inlineChars */
	struct tool_jobs	 jobs;
	char			**pin;		/* pinned code: workspace paths,
						   a trailing '/' for a
						   directory; NULL-terminated */
	size_t			 npin;
	struct shell_rules	*shell_rules;	/* ACTION_EXEC: allow/ask/deny
						   rules for the command
						   string (policy/shrules.h),
						   or NULL: none */
	int			 escalation;	/* 1: "ask": the agent may ask
						   a human to re-run a refused
						   call with exactly what was
						   denied added */
	int			 line, column;
};

/*
 * Pinned code: the workspace files that are a check's or a tool's code.
 * broker/pins.h finds them (the files its argv names, Makefile for make,
 * and the |pin| list) and hashes them at session start.
 */
struct check {
	char		*id;
	char		**argv;		/* NULL-terminated, pinned */
	char		**env;		/* "K=V", NULL-terminated */
	size_t		  nenv;
	int64_t		  timeout_ms;
	struct net_allow  network;
	char		**pin;		/* as struct tool's */
	size_t		  npin;
	int		  line, column;
};

/*
 * The most runBudget.maxElapsedMinutes may be (about 1900 years): its
 * milliseconds, added to a monotonic clock, must stay far from INT64_MAX.
 * INT64_MAX minutes (meant as "no limit") wrapped when multiplied into
 * milliseconds and stopped the session at its first call.
 */
#define MANIFEST_ELAPSED_MINUTES_MAX	1000000000

/*
 * runBudget.maxRefusedCalls when the manifest says nothing: every refused
 * call is a signed record or two, and an agent refused in a loop wrote
 * them at the broker's speed (27 MB of log a second) until the session's
 * time ran out.
 */
#define MANIFEST_REFUSED_CALLS_DEFAULT	10000

/*
 * runBudget.maxAuditMiB when the manifest says nothing, and the most it
 * may be.  Allowed calls and "busy" refusals are signed records too, and
 * no other limit bounds them when maxModelSteps is unset: an agent that
 * read one file in a loop wrote 13 MB of log a second, a retry of a
 * "busy" call 9 MB.  An honest session of 15000 calls writes about 12 MiB.
 */
#define MANIFEST_AUDIT_MIB_DEFAULT	1024
#define MANIFEST_AUDIT_MIB_MAX		(1024 * 1024)

/* The seed's runBudget; a value of -1 means "no limit". */
struct run_budget {
	int64_t	max_model_steps;
	int64_t	max_patch_attempts_per_gate;
	int64_t	max_elapsed_minutes;
	int64_t	max_changed_files;
	int64_t	max_added_dependencies;
	double	max_tool_cost_usd;		/* < 0: no limit */
	int64_t	max_parallel_processes;
	int64_t	stop_on_repeated_failure_fingerprint;
	/* tools/call requests refused (MANIFEST_REFUSED_CALLS_DEFAULT). */
	int64_t	max_refused_calls;
	/* MiB of audit log (MANIFEST_AUDIT_MIB_DEFAULT); -1: no limit. */
	int64_t	max_audit_mib;
};

struct resource_limits {
	int64_t	cpu_seconds;		/* RLIMIT_CPU */
	int64_t	address_space_mb;	/* RLIMIT_AS, 0 = unlimited */
	int64_t	file_size_mb;		/* RLIMIT_FSIZE */
	int64_t	open_files;		/* RLIMIT_NOFILE */
	int64_t	processes;		/* RLIMIT_NPROC and pids.max */
	int64_t	memory_mb;		/* cgroup memory.max */
	int64_t	cpu_percent;		/* cgroup cpu.max, 100 = one core */
	int64_t	tmp_size_mb;		/* size of the tmpfs /tmp */
	int64_t	output_bytes;		/* captured stdout+stderr cap */
	/* The cgroup limits asked for explicitly (LIMIT_ASKED_*), as
	 * opposed to defaults, and what to do when one cannot be enforced
	 * (policy/manifest_limits.h). */
	unsigned asked;
	int	best_effort;		/* limits.enforce: best-effort */
};
#define LIMIT_ASKED_MEMORY	0x1
#define LIMIT_ASKED_PIDS	0x2
#define LIMIT_ASKED_CPU		0x4

enum seccomp_profile {
	SECCOMP_PROFILE_DEFAULT,	/* denylist: dangerous ABIs get EPERM */
	SECCOMP_PROFILE_STRICT,		/* allowlist */
};

enum workspace_mode {
	WORKSPACE_DIRECT,		/* writes land in the workspace */
	WORKSPACE_COW,			/* overlayfs: writes land in an upper dir */
};

/* What runners may see and do.  Paths are absolute host paths unless noted. */
struct sandbox_policy {
	uid_t			 uid;		/* runner uid when airlock is root */
	gid_t			 gid;
	char			**read_only;	/* host paths bound read-only */
	size_t			  nread_only;
	char			**read_write;	/* host paths bound read-write
						   at their own path (airlock run
						   and exec --rw), or NULL */
	size_t			  nread_write;
	char			**deny_read;	/* host paths made absent ("~" expanded) */
	size_t			  ndeny_read;
	char			**protected;	/* workspace-relative, read-only */
	size_t			  nprotected;
	int			 network;	/* 0: none; 1: egress proxy only */
	enum seccomp_profile	 seccomp;
	int			 landlock;	/* 1: on where the kernel has it */
	enum workspace_mode	 workspace;
	int			 workspace_readonly;	/* 1: no writes at all
							   (a read-only agent) */
	int			 host_writes;	/* 1: the workspace is written
						   directly, not through a
						   change set (an agent with
						   agent.workspace: rw): no
						   setuid or setgid bit may be
						   set (seccomp_policy.h) */
	const char		*home;		/* a host directory bound
						   read-write at its own path
						   (the agent's persistent home),
						   or NULL; borrowed */
	char *const		*home_ro;	/* home-relative paths bound
						   read-only in |home| (the
						   agent's own configuration;
						   runner/child.c
						   home_read_only()), or
						   NULL; borrowed */
	size_t			 nhome_ro;
	char *const		*home_scratch;	/* home-relative directories
						   given an empty tmpfs in
						   |home| (runner/child.c
						   home_scratch()), or NULL;
						   borrowed */
	size_t			 nhome_scratch;
	const char		*agent_home;	/* agent.home as the manifest
						   names it, or NULL: a place
						   the agent writes, whether
						   or not this sandbox binds
						   it (a link there may be
						   rewritten); borrowed */
	const char		*broker_dir;	/* a host directory bound
						   read-only at
						   SANDBOX_BROKER_DIR (the
						   agent's MCP socket), or
						   NULL; borrowed */
	struct resource_limits	 limits;
	char			**allow_syscalls;	/* names taken off the
							   default seccomp deny
							   list for every run,
							   NULL-terminated */
	size_t			  nallow_syscalls;
	/*
	 * Entries of read_only and read_write whose host source was checked
	 * just before the run (an escalation's widening): the source is
	 * bound at |path| only as it was checked, opened with no symlink
	 * followed in any component, or the run fails; NULL/0: none.
	 */
	const struct exact_bind	*exact;
	size_t			 nexact;
};

struct exact_bind {
	const char		*path;		/* as read_only/read_write name it */
	const char		*src;		/* the host path bound there, with no
						   symlink in it */
};

/* Where the agent's sandbox sees the broker's socket directory. */
#define SANDBOX_BROKER_DIR	"/run/airlock"
#define SANDBOX_BROKER_SOCKET	SANDBOX_BROKER_DIR "/mcp.sock"

/* When the notify hook runs. */
#define NOTIFY_EV_CREATED	0x1
#define NOTIFY_EV_DECIDED	0x2	/* granted or denied */
#define NOTIFY_EV_EXPIRED	0x4
#define NOTIFY_EV_WITHDRAWN	0x8	/* the agent cancelled the call */
#define NOTIFY_EV_ALL		(NOTIFY_EV_CREATED | NOTIFY_EV_DECIDED | \
				    NOTIFY_EV_EXPIRED | NOTIFY_EV_WITHDRAWN)
/* approvals.notify.timeoutMs when none is given. */
#define NOTIFY_TIMEOUT_MS_DEFAULT 10000

/* An Ed25519 public key allowed to sign decisions (issue 16). */
struct approver_key {
	unsigned char	 pk[32];
	char		*name;		/* the manifest's label, or NULL */
};

struct approval_policy {
	uid_t		*approvers;	/* uids allowed to approve */
	size_t		 napprovers;
	gid_t		*approver_groups; /* members of these gids may too */
	size_t		 ngroups;
	char		**approver_names; /* as written: "bob", "group:ops" */
	struct approver_key *keys;	/* keys whose signed tokens decide */
	size_t		 nkeys;
	unsigned char	(*revoked)[32];	/* keys refused even if listed */
	size_t		 nrevoked;
	char		*inbox;		/* directory watched for tokens */
	/* The notify hook's sandbox (notify: as a mapping; issue 16). */
	struct net_allow notify_net;	/* what the hook may reach */
	char		**notify_env;	/* variable names passed to it */
	size_t		 nnotify_env;
	unsigned	 notify_events;	/* NOTIFY_EV_* */
	int64_t		 notify_timeout_ms;
	int64_t		 ttl_seconds;
	int64_t		 max_asks_per_minute;	/* approvals asked of people */
	char		**notify;	/* hook argv, NULL-terminated, or NULL */
};

/* The most approvals.maxAsksPerMinute may be (broker/approval.c keeps a
 * ring of that many ask times). */
#define APPROVALS_MAX_ASKS_PER_MINUTE 600

/* The agent process of "airlock run". */
struct agent_profile {
	struct net_allow network;
	int		 workspace_writable;
	/* agent.workspace: cow (supervisor/cowsession.h): the agent writes
	 * into its session's overlay; nothing lands until airlock commit. */
	int		 workspace_cow;
	/* agent.commitApproval: required: airlock commit must be run by a
	 * user in approvals.approvers. */
	int		 commit_approval;
	char		*home;		/* persistent home dir, or NULL: tmpfs */
	char		**home_ro;	/* agent.homeReadOnly: home-relative
					   paths read-only in the agent's
					   sandbox, NULL-terminated */
	size_t		  nhome_ro;
	char		**home_scratch;	/* agent.homeScratch: home-relative
					   directories (each ending in "/")
					   empty in every session of the
					   agent's sandbox, NULL-terminated */
	size_t		  nhome_scratch;
	char		**env_pass;	/* variable names passed through */
	size_t		  nenv_pass;
	struct resource_limits limits;
};

/* What of a result reaches the model inline (issue 13). */
struct output_policy {
	int64_t	  inline_chars;		/* cap of a result's text */
	char	**failure_patterns;	/* NULL-terminated; kept from the middle */
	size_t	  nfailure_patterns;
	int64_t	  artifact_quota_mb;	/* per session; 0: keep none */
};

/*
 * Escalation of one refused call (top-level "escalation:"): the widening
 * classes refused without asking a human, and how long a request waits.
 */
#define ESCALATE_CLASS_READ	0x01	/* filesystem read outside */
#define ESCALATE_CLASS_WRITE	0x02	/* filesystem write outside */
#define ESCALATE_CLASS_NETWORK	0x04
#define ESCALATE_CLASS_SYSCALL	0x08
#define ESCALATE_CLASS_LIMIT	0x10
#define ESCALATE_CLASS_PROTECTED 0x20	/* always forbidden */

struct escalation_policy {
	unsigned	forbid;		/* ESCALATE_CLASS_* bits */
	int64_t		expires_s;	/* 0: approvals.ttlSeconds */
};

struct manifest {
	char			*path;		/* file it was loaded from */
	unsigned char		 digest[32];	/* SHA-256 of the file's bytes */
	struct type_table	*types;
	struct tool		*tools;
	size_t			 ntools;
	struct check		*checks;
	size_t			 nchecks;
	char			**required_gates;	/* check ids */
	size_t			  nrequired_gates;
	char			**dependency_files;	/* workspace-relative */
	size_t			  ndependency_files;
	int			 forbid_side_effect[SIDE_EFFECT_COUNT];
	struct run_budget	 budget;
	struct sandbox_policy	 sandbox;
	struct approval_policy	 approvals;
	struct agent_profile	 agent;
	size_t			 max_frame_bytes;	/* default 1 MiB */
	struct output_policy	 output;
	struct escalation_policy escalation;
};

/*
 * Loads and validates the manifest at |path|.  Returns 0 and sets *out
 * (caller frees with manifest_free), or a negative code with a message
 * "FILE:LINE:COLUMN: FIELD: problem" in err[0..errlen).
 */
int	manifest_load(const char *path, struct manifest **out,
	    char *err, size_t errlen) __attribute__((warn_unused_result));

/* Same, from a buffer; |name| is used in messages and as m->path. */
int	manifest_load_buffer(const char *name, const char *data, size_t len,
	    struct manifest **out, char *err, size_t errlen)
	    __attribute__((warn_unused_result));

/* Loads the built-in default manifest (the seed's tools, bound). */
int	manifest_load_default(struct manifest **out, char *err, size_t errlen)
	    __attribute__((warn_unused_result));

void	manifest_free(struct manifest *m);

/*
 * Escalation classes (policy/manifest_escalation.c): the name of one
 * ESCALATE_CLASS_* bit ("read", "write", "network", "syscall", "limit",
 * "protected"; "?" for anything else), and the bit of a name (0 if none).
 */
const char	*escalate_class_name(unsigned bit);
unsigned	 escalate_class_parse(const char *s);

/*
 * Whether the default seccomp filter refuses syscall |name| outright (a
 * rule without an argument test): the only names sandbox.allowSyscalls
 * and an escalation may take off its deny list.  Pure.
 */
int		 seccomp_default_denies(const char *name);

/* Prints the top-level escalation: mapping when it is not the default. */
void		 manifest_escalation_print(const struct manifest *m, FILE *fp);

/* Returns the tool or check with that name (borrowed), or NULL. */
const struct tool	*manifest_tool(const struct manifest *m, const char *name);
const struct check	*manifest_check(const struct manifest *m, const char *id);

/*
 * Whether the command template element |el| is a placeholder: exactly
 * "{ident}" with ident a field name ([A-Za-z_][A-Za-z0-9_]*, at most 64
 * bytes).  Returns 1 and copies ident to name[0..namelen), or 0: the
 * element is literal, braces and all.  The loader and the broker's argv
 * filling both ask this, so that they agree on what is the agent's.
 */
int	manifest_placeholder(const char *el, char *name, size_t namelen);

/*
 * A type_check_exists_fn for type_validate(): returns 1 if |id| names a
 * check of the manifest |m| (a const struct manifest *), else 0.
 */
int	manifest_check_exists(const char *id, void *m);

/*
 * The rule that applies to a call of |t|: AUTHZ_DENY if t's side effect
 * is listed in forbidSideEffects, else t->authorization.
 */
enum authorization	manifest_tool_authorization(const struct manifest *m,
			    const struct tool *t);

/*
 * Writes the canonical YAML form of |m| to |fp| (airlock check -v): every
 * default made explicit, keys in a fixed order.  Loading the output gives
 * an equal manifest.
 */
int	manifest_print_canonical(const struct manifest *m, FILE *fp);

/* Names for enums, as spelled in the manifest. */
const char	*side_effect_name(enum side_effect);
const char	*authorization_name(enum authorization);
const char	*tool_action_name(enum tool_action);

#endif
