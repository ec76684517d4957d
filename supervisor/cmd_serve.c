/* airlock serve: the broker alone, on stdin/stdout. */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "broker/audit.h"
#include "broker/broker.h"
#include "broker/loop.h"
#include "common/log.h"
#include "supervisor/commands.h"
#include "supervisor/session.h"
#include "supervisor/setup.h"
#include "supervisor/signals.h"

static void
serve_on_close(void *arg)
{
	loop_stop(arg);
}

int
cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*mpath = NULL, *wpath = NULL;
	char			 ws[PATH_MAX], err[512];
	struct manifest		*m;
	struct session		 s;
	struct audit		*a;
	struct loop		*loop;
	struct broker		*b;
	struct broker_config	 cfg;
	int			 ch, verbose = 0, sigwatch;

	while ((ch = getopt_long(argc, argv, "m:w:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'm': mpath = optarg; break;
		case 'w': wpath = optarg; break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: airlock serve [--manifest M] "
			    "[--workspace W]\n");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: airlock serve [--manifest M] "
		    "[--workspace W]\n");
		return EXIT_USAGE;
	}
	log_init("airlock serve", verbose);
	if ((m = setup_manifest(mpath)) == NULL)
		return EXIT_CONFIG;
	if (setup_workspace(wpath, ws) != 0)
		return EXIT_USAGE;
	if (session_create(&s, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (audit_open(s.audit_path, s.id, &a) != 0)
		fatal("audit log %s", s.audit_path);
	if ((loop = loop_new()) == NULL)
		fatal("loop_new");
	sigwatch = signals_watch(loop);
	if (session_record_start(a, "serve", m, ws, &s, NULL) != 0)
		fatalx("cannot write the audit log %s", s.audit_path);
	memset(&cfg, 0, sizeof(cfg));
	cfg.manifest = m;
	cfg.workspace = ws;
	cfg.session_id = s.id;
	cfg.session_dir = s.dir;
	cfg.audit = a;
	cfg.loop = loop;
	cfg.in_fd = STDIN_FILENO;
	cfg.out_fd = STDOUT_FILENO;
	cfg.on_close = serve_on_close;
	cfg.arg = loop;
	if ((b = broker_new(&cfg, err, sizeof(err))) == NULL)
		fatalx("%s", err);
	log_info("session %s, audit log %s", s.id, s.audit_path);
	if (loop_run(loop) != 0)
		log_warn("event loop");
	broker_free(b);
	signals_unwatch(loop, sigwatch);
	audit_close(a);
	loop_free(loop);
	manifest_free(m);
	return 0;
}
