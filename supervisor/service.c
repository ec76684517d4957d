/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/audit_ship.h"
#include "common/errors.h"
#include "common/paths.h"
#include "common/log.h"
#include "common/util.h"
#include "broker/selfsandbox.h"
#include "policy/sensitive.h"
#include "runner/runner.h"
#include "supervisor/commands.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"
#include "supervisor/service.h"
#include "supervisor/setup.h"
#include "supervisor/signals.h"

static int
approval_audit(void *arg, const char *event, json_t *fields)
{
	struct audit *a = arg;
	int rc;

	if ((rc = audit_append(a, event, fields)) != 0)
		log_warnx("cannot record %s in the audit log", event);
	return rc;
}

/* Signs a pending approval with the session's audit key (reqsig.h). */
static json_t *
approval_attest(void *arg, const char *msg, size_t len)
{
	return audit_attest(arg, msg, len);
}

/*
 * Opens the credential store if any tool is granted a secret, and loads
 * every granted value into the redactor.  A grant that cannot be honoured
 * (missing secret, value too short to redact) stops start-up: fail closed.
 * Returns 0 or EXIT_CONFIG.
 */
static int
open_secrets(struct service *sv)
{
	const char	**names = NULL;
	char		 *dir = NULL, *env, *pass = NULL;
	size_t		  n = 0, i, j, plen = 0;
	int		  rc;

	/*
	 * The passphrase leaves the environment before anything is started:
	 * the patch jail, the agent (whose agent.env could name it) and
	 * notify commands inherit or copy from it.
	 */
	if ((env = getenv(SECRETS_PASSPHRASE_ENV)) != NULL) {
		plen = strlen(env);
		if ((pass = sodium_malloc(plen + 1)) == NULL)
			fatalx("out of memory");
		memcpy(pass, env, plen + 1);
		sodium_memzero(env, plen);
		if (unsetenv(SECRETS_PASSPHRASE_ENV) == -1)
			fatal("unsetenv");
	}
	for (i = 0; i < sv->m->ntools; i++)
		for (j = 0; j < sv->m->tools[i].nsecrets; j++) {
			names = xreallocarray(names, n + 1, sizeof(*names));
			names[n++] = sv->m->tools[i].secrets[j].name;
		}
	if (n == 0) {
		sodium_free(pass);
		return 0;
	}
	if (secrets_default_dir(&dir) != 0)
		fatalx("no directory for the credential store");
	if (pass != NULL)
		rc = secrets_open_passphrase(dir, pass, plen, &sv->secrets);
	else
		rc = secrets_open(dir, &sv->secrets);
	sodium_free(pass);
	if (rc != 0) {
		log_warnx("credential store %s: %s", dir, al_strerror(rc));
		free(dir);
		free(names);
		return EXIT_CONFIG;
	}
	free(dir);
	if ((sv->redact = redact_new()) == NULL)
		fatalx("out of memory");
	rc = secrets_add_to_redact(sv->secrets, names, n, sv->redact);
	free(names);
	if (rc != 0) {
		log_warnx("a secret granted by the manifest cannot be used: %s "
		    "(see airlock secret list)", rc == AL_ERR_LIMIT ?
		    "a value too short to redact" : rc == AL_ERR_FORMAT ?
		    "a malformed name, or a value holding a NUL byte (the "
		    "environment would cut it there)" : al_strerror(rc));
		return EXIT_CONFIG;
	}
	audit_set_redact(sv->audit, sv->redact);
	return 0;
}

/*
 * The outputs of CONFIG/audit.conf: a file that does not parse stops the
 * session (EXIT_CONFIG) rather than run without the copies it asks for.
 */
static int
open_ship(struct service *sv)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], err[PATH_MAX + 256];

	if (paths_config_dir(dir, sizeof(dir)) != 0) {
		log_warnx("the configuration directory path is too long");
		return EXIT_CONFIG;
	}
	snprintf(path, sizeof(path), "%s/audit.conf", dir);
	if (audit_ship_load(path, &sv->ship, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		return EXIT_CONFIG;
	}
	audit_set_default_sink(sv->ship != NULL ? audit_ship_record : NULL,
	    sv->ship);
	return 0;
}

/*
 * sandbox.allowSyscalls cannot name a syscall the broker's own filter
 * refuses (broker/selfsandbox.h): every runner inherits that filter, so
 * the name would stay refused.  Said at start, not silently ignored.
 */
static int
allow_syscalls_refused(const struct manifest *m)
{
	const char *const	*denied = selfsandbox_denied();
	size_t			 i, j;

	for (i = 0; i < m->sandbox.nallow_syscalls; i++)
		for (j = 0; denied[j] != NULL; j++)
			if (strcmp(m->sandbox.allow_syscalls[i],
			    denied[j]) == 0) {
				log_warnx("sandbox.allowSyscalls[%zu]: %s is "
				    "refused by the broker's own seccomp filter, "
				    "which every runner of a session inherits "
				    "(docs/PRIVSEP.md); it can be allowed only "
				    "with airlock exec", i, denied[j]);
				return -1;
			}
	return 0;
}

/*
 * A sandbox.denyRead path in the workspace's repository may be read
 * through its history, by the agent's git and the broker's read_file of
 * .git: the session is refused, naming both, unless the repository's
 * metadata is denied too (each runner checks again: runner/runner.c).
 */
static int
vcs_store_shown(const struct manifest *m, const char *ws)
{
	char store[PATH_MAX];
	const char *d;

	if ((d = sensitive_vcs_exposed(ws, m->sandbox.deny_read,
	    m->sandbox.ndeny_read, store, sizeof(store))) == NULL)
		return 0;
	log_warnx("sandbox.denyRead path %s may be in the history of %s, "
	    "which the agent reads (git show HEAD:..., read_file): add %s "
	    "to sandbox.denyRead too, or keep the secret out of the "
	    "repository", d, store, store);
	return -1;
}

/*
 * The approvals inbox where the agent writes (the workspace, agent.home,
 * a readWrite entry): it would read the signed tokens there, and fill
 * the inbox with tokens of other sessions that every scan leaves in
 * place, so that the person's answer is never read.  Refused, naming
 * both.
 */
static int
inbox_agent_writes(const struct manifest *m, const char *ws)
{
	const char *inbox = m->approvals.inbox, *place;
	char in[PATH_MAX], real[PATH_MAX];
	size_t i;

	if (inbox == NULL)
		return 0;
	if (realpath(inbox, in) == NULL)
		snprintf(in, sizeof(in), "%s", inbox);
	for (i = 0; i < m->sandbox.nread_write + 2; i++) {
		place = i == 0 ? ws : i == 1 ? m->agent.home :
		    m->sandbox.read_write[i - 2];
		if (place == NULL || realpath(place, real) == NULL ||
		    (!path_is_beneath(in, real) && !path_is_beneath(inbox, real)))
			continue;
		log_warnx("approvals.inbox %s lies in %s, which the agent "
		    "writes: it could read the tokens and fill the inbox so "
		    "that an answer is never read; move the inbox out",
		    inbox, place);
		return -1;
	}
	return 0;
}

/*
 * An approvals inbox that exists must be safe to read tokens from
 * (approvals_inbox_safe(): owned by root or by us, not writable by
 * group or others without the sticky bit): refused, saying why.  One
 * that does not exist yet is made 0700 (the broker checks again what
 * it opened).
 */
static int
inbox_unsafe(const struct manifest *m)
{
	char why[PATH_MAX + 256];
	struct stat st;

	if (m->approvals.inbox == NULL)
		return 0;
	if (lstat(m->approvals.inbox, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warnx("approvals.inbox %s: %s", m->approvals.inbox,
		    strerror(errno));
		return -1;
	}
	if (approvals_inbox_safe(m->approvals.inbox, &st, geteuid(), why,
	    sizeof(why)))
		return 0;
	log_warnx("%s", why);
	return -1;
}

int
service_open(struct service *sv, const char *command, const char *mpath,
    const char *wpath, char *const *agent_argv, json_t *overrides)
{
	char	err[PATH_MAX + 128], hostkey[PATH_MAX];
	char	hostpub[AUDIT_PUBKEY_HEX_LEN + 1];
	json_t	*start;
	int	rc;

	memset(sv, 0, sizeof(*sv));
	if ((sv->m = setup_manifest(mpath)) == NULL)
		return EXIT_CONFIG;
	/* One session: its runners take the uid's budgets together. */
	runner_session_nest(sv->m->sandbox.uid, sv->m->sandbox.gid);
	if (allow_syscalls_refused(sv->m) != 0) {
		manifest_free(sv->m);
		return EXIT_CONFIG;
	}
	if ((rc = setup_workspace(wpath, sv->workspace)) != 0) {
		manifest_free(sv->m);
		return rc;
	}
	if (vcs_store_shown(sv->m, sv->workspace) != 0 ||
	    inbox_agent_writes(sv->m, sv->workspace) != 0 ||
	    inbox_unsafe(sv->m) != 0) {
		manifest_free(sv->m);
		return EXIT_CONFIG;
	}
	setup_protect_manifest(sv->m, sv->workspace);
	if (session_create(&sv->session, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (hostkey_ensure(hostpub, err, sizeof(err)) != 0 ||
	    hostkey_path(hostkey, sizeof(hostkey)) != 0)
		fatalx("audit host key: %s", err);
	if ((rc = open_ship(sv)) != 0) {
		manifest_free(sv->m);
		return rc;
	}
	if ((start = session_start_fields(command, sv->m, sv->workspace,
	    agent_argv)) == NULL)
		fatalx("out of memory");
	rc = audit_open_certified(sv->session.audit_path, sv->session.id,
	    hostkey, start, &sv->audit);
	json_decref(start);
	if (rc != 0)
		fatal("audit log %s", sv->session.audit_path);
	if (session_record_start(sv->audit, command, sv->m, sv->workspace,
	    &sv->session, agent_argv, overrides) != 0)
		fatalx("cannot write the audit log %s",
		    sv->session.audit_path);
	if ((rc = open_secrets(sv)) != 0) {
		audit_close(sv->audit);
		audit_set_default_sink(NULL, NULL);
		audit_ship_free(sv->ship);
		secrets_close(sv->secrets);
		redact_free(sv->redact);
		manifest_free(sv->m);
		return rc;
	}
	if ((sv->loop = loop_new()) == NULL)
		fatal("loop_new");
	sv->sigwatch = signals_watch(sv->loop);
	sv->egress = egress_new(sv->loop, sv->audit);
	sv->approvals = approvals_new(sv->m, sv->session.id, sv->loop,
	    sv->egress, approval_audit, sv->audit, err, sizeof(err));
	if (sv->approvals == NULL)
		log_warnx("approvals are unavailable (%s): tools that need "
		    "one will be refused", err);
	else
		approvals_set_attester(sv->approvals, approval_attest,
		    sv->audit);
	if (selfsandbox_apply(err, sizeof(err)) != 0)
		fatalx("%s", err);
	return 0;
}

void
service_start_broker(struct service *sv, int in_fd, int out_fd,
    void (*on_close)(void *), void *arg)
{
	struct broker_config	cfg;
	char			err[512];

	memset(&cfg, 0, sizeof(cfg));
	cfg.manifest = sv->m;
	cfg.workspace = sv->workspace;
	cfg.session_id = sv->session.id;
	cfg.session_dir = sv->session.dir;
	cfg.audit = sv->audit;
	cfg.approvals = sv->approvals;
	cfg.secrets = sv->secrets;
	cfg.egress = sv->egress;
	cfg.redact = sv->redact;
	cfg.loop = sv->loop;
	cfg.in_fd = in_fd;
	cfg.out_fd = out_fd;
	cfg.on_close = on_close;
	cfg.arg = arg;
	cfg.carry = sv->carry;
	cfg.record_budget = sv->record_budget;
	cfg.agent_writes = sv->agent_writes;
	cfg.nagent_writes = sv->nagent_writes;
	cfg.agent_writes_known = sv->agent_writes_known;
	if ((sv->broker = broker_new(&cfg, err, sizeof(err))) == NULL)
		fatalx("%s", err);
}

void
service_close(struct service *sv)
{
	broker_free(sv->broker);
	sv->broker = NULL;
	approvals_free(sv->approvals);
	egress_free(sv->egress);
	signals_unwatch(sv->loop, sv->sigwatch);
	audit_close(sv->audit);
	if (audit_ship_dropped(sv->ship) > 0)
		log_warnx("audit: %llu record cop%s not shipped (the audit file "
		    "has them all)", (unsigned long long)audit_ship_dropped(
		    sv->ship), audit_ship_dropped(sv->ship) == 1 ? "y" : "ies");
	audit_set_default_sink(NULL, NULL);
	audit_ship_free(sv->ship);
	secrets_close(sv->secrets);
	redact_free(sv->redact);
	loop_free(sv->loop);
	manifest_free(sv->m);
}
