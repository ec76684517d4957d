/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock proxy: run the egress proxy standalone on one listening
 * address, for testing and for use outside the supervisor.
 */
#include "config.h"

#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "proxy/rules.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"

static volatile sig_atomic_t cmd_proxy_stop;

static void
cmd_proxy_on_signal(int sig)
{
	(void)sig;
	cmd_proxy_stop = 1;
}

static void
cmd_proxy_usage(void)
{
	cli_usage("proxy");
}

static int
parse_num(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Opens a listening socket on the IP literal and port in |spec|. */
static int
listen_on(const char *spec, uint16_t *port_out)
{
	struct rules_target t;
	struct sockaddr_storage ss;
	socklen_t len;
	char why[RULES_REASON_MAX];
	int fd, one = 1;
	const char *colon = strrchr(spec, ':');

	/* Port 0 asks the kernel to choose; the parser wants 1..65535. */
	memset(&ss, 0, sizeof(ss));
	if (colon != NULL && strcmp(colon, ":0") == 0) {
		if (rules_parse_authority(spec, (size_t)(colon - spec), 1, &t,
		    why, sizeof(why)) != 0)
			fatalx("--listen %s: %s", spec, why);
		t.port = 0;
	} else if (rules_parse_authority(spec, strlen(spec), 0, &t, why,
	    sizeof(why)) != 0)
		fatalx("--listen %s: %s", spec, why);
	if (t.family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, t.addr, 4);
		s4->sin_port = htons(t.port);
		len = sizeof(*s4);
	} else if (t.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, t.addr, 16);
		s6->sin6_port = htons(t.port);
		len = sizeof(*s6);
	} else
		fatalx("--listen %s: need an IP address, not a name", spec);
	if (rules_classify(t.family, t.addr, NULL, 0) != ADDR_LOOPBACK)
		log_warnx("listening on a non-loopback address: anyone who "
		    "can reach %s can use the proxy", spec);
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) == -1)
		fatal("bind %s", spec);
	if (listen(fd, 128) == -1)
		fatal("listen");
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		fatal("getsockname");
	*port_out = ntohs(ss.ss_family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

int
cmd_proxy(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "allow", required_argument, NULL, 'a' },
		{ "allow-ip", required_argument, NULL, 'i' },
		{ "max-bytes", required_argument, NULL, 'b' },
		{ "idle-ms", required_argument, NULL, 't' },
		{ "connect-ms", required_argument, NULL, 'c' },
		{ "max-conns", required_argument, NULL, 'n' },
		{ "max-line", required_argument, NULL, 'L' },
		{ "max-header", required_argument, NULL, 'H' },
		{ "events", required_argument, NULL, 'e' },
		{ "sandbox", required_argument, NULL, 's' },
		{ "port-file", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct proxy_limits lim;
	struct sigaction sa;
	struct rules *rules;
	struct proxy *p;
	const char *listen_spec = NULL, *events = NULL, *sandbox = "standalone";
	const char *port_file = NULL;
	char err[RULES_REASON_MAX];
	uint64_t v;
	uint16_t port;
	uid_t uid = 0;
	int ch, lfd, efd = -1, rc, verbose = 0;

	proxy_limits_default(&lim);
	if ((rules = rules_new()) == NULL)
		fatalx("out of memory");
	optind = 1;
	while ((ch = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			listen_spec = optarg;
			break;
		case 'a':
			if (rules_add_host(rules, optarg, err, sizeof(err)))
				goto badrule;
			break;
		case 'i':
			if (rules_add_ip(rules, optarg, err, sizeof(err)))
				goto badrule;
			break;
		case 'b':
			if (parse_num(optarg, UINT64_MAX, &v))
				goto badnum;
			lim.max_bytes = v;
			break;
		case 't':
			if (parse_num(optarg, 86400000, &v) || v == 0)
				goto badnum;
			lim.idle_ms = (int)v;
			break;
		case 'c':
			if (parse_num(optarg, 86400000, &v) || v == 0)
				goto badnum;
			lim.connect_ms = (int)v;
			break;
		case 'n':
			if (parse_num(optarg, 100000, &v) || v == 0)
				goto badnum;
			lim.max_conns = (int)v;
			break;
		case 'L':
			if (parse_num(optarg, 65536, &v) || v < 64)
				goto badnum;
			lim.max_line = (size_t)v;
			break;
		case 'H':
			if (parse_num(optarg, 65536, &v) || v < 64)
				goto badnum;
			lim.max_header = (size_t)v;
			break;
		case 'e':
			events = optarg;
			break;
		case 's':
			sandbox = optarg;
			break;
		case 'p':
			port_file = optarg;
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			(void)cli_help("proxy", stdout);
			rules_free(rules);
			return 0;
		default:
			cmd_proxy_usage();
			rules_free(rules);
			return EXIT_USAGE;
		}
	}
	if (listen_spec == NULL || optind != argc) {
		cmd_proxy_usage();
		rules_free(rules);
		return EXIT_USAGE;
	}
	if (rules_count(rules) == 0)
		log_warnx("no --allow or --allow-ip: every request is refused");
	log_init("airlock proxy", verbose);
	if (geteuid() == 0 && proxy_uid_choose(&uid, err, sizeof(err)) != 0)
		fatalx("%s", err);
	if (events != NULL && (efd = open(events, O_WRONLY | O_APPEND |
	    O_CREAT | O_CLOEXEC, 0600)) == -1)
		fatal("open %s", events);
	lfd = listen_on(listen_spec, &port);
	if (port_file != NULL) {
		FILE *fp;

		if ((fp = fopen(port_file, "w")) == NULL)
			fatal("open %s", port_file);
		fprintf(fp, "%u\n", port);
		if (fclose(fp) != 0)
			fatal("write %s", port_file);
	}
	proxy_drop_privileges(uid);
	proxy_raise_nofile();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cmd_proxy_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	if ((p = proxy_new(&lim, efd)) == NULL)
		fatalx("out of memory");
	if (proxy_start_resolvers(p, PROXY_RESOLVERS) != 0)
		fatal("resolver processes");
	if (proxy_confine() != 0)
		fatal("seccomp");
	if ((rc = proxy_add_listener(p, lfd, sandbox, rules)) != 0)
		fatalx("--sandbox %s: %s", sandbox, al_strerror(rc));
	log_info("listening on port %u", port);
	rc = proxy_run(p, &cmd_proxy_stop);
	proxy_free(p);
	if (rc != 0)
		fatalx("proxy: %s", al_strerror(rc));
	return 0;

 badrule:
	log_warnx("%s", err);
	rules_free(rules);
	return EXIT_USAGE;
 badnum:
	log_warnx("invalid number: %s", optarg);
	rules_free(rules);
	return EXIT_USAGE;
}
