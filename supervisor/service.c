#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "supervisor/commands.h"
#include "supervisor/service.h"
#include "supervisor/setup.h"
#include "supervisor/signals.h"

static void
approval_audit(void *arg, const char *event, json_t *fields)
{
	struct audit *a = arg;

	if (audit_append(a, event, fields) != 0)
		log_warnx("cannot record %s in the audit log", event);
}

int
service_open(struct service *sv, const char *command, const char *mpath,
    const char *wpath, char *const *agent_argv)
{
	char err[512];

	memset(sv, 0, sizeof(*sv));
	if ((sv->m = setup_manifest(mpath)) == NULL)
		return EXIT_CONFIG;
	if (setup_workspace(wpath, sv->workspace) != 0) {
		manifest_free(sv->m);
		return EXIT_USAGE;
	}
	if (session_create(&sv->session, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (audit_open(sv->session.audit_path, sv->session.id,
	    &sv->audit) != 0)
		fatal("audit log %s", sv->session.audit_path);
	if (session_record_start(sv->audit, command, sv->m, sv->workspace,
	    &sv->session, agent_argv) != 0)
		fatalx("cannot write the audit log %s",
		    sv->session.audit_path);
	if ((sv->loop = loop_new()) == NULL)
		fatal("loop_new");
	sv->sigwatch = signals_watch(sv->loop);
	sv->approvals = approvals_new(sv->m, sv->session.id, sv->loop,
	    approval_audit, sv->audit, err, sizeof(err));
	if (sv->approvals == NULL)
		log_warnx("approvals are unavailable (%s): tools that need "
		    "one will be refused", err);
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
	cfg.loop = sv->loop;
	cfg.in_fd = in_fd;
	cfg.out_fd = out_fd;
	cfg.on_close = on_close;
	cfg.arg = arg;
	if ((sv->broker = broker_new(&cfg, err, sizeof(err))) == NULL)
		fatalx("%s", err);
}

void
service_close(struct service *sv)
{
	broker_free(sv->broker);
	sv->broker = NULL;
	approvals_free(sv->approvals);
	signals_unwatch(sv->loop, sv->sigwatch);
	audit_close(sv->audit);
	loop_free(sv->loop);
	manifest_free(sv->m);
}
