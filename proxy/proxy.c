/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * proxy: the egress proxy's poll() loop.
 *
 * A connection moves through these states:
 *
 *   HEAD        reading the request head (bounded: max_line, max_header;
 *               checked by http_head_parse(), strict RFC 9112 framing)
 *   RESOLVING   waiting for a resolver process to look the name up
 *               (queued oldest first; one sandbox holds at most all
 *               resolvers but one; PROXY_LOOKUP_MS per lookup, then the
 *               resolver is killed and replaced: see proxy_add_resolver())
 *   CONNECTING  non-blocking connect to the first checked address, then
 *               the next one on failure
 *   RELAY       copying bytes both ways (byte cap, idle timeout); a
 *               tunnel to a name first holds what the client sends until
 *               hello_judge() has read its start (a ClientHello naming
 *               the CONNECT host, or one plain-HTTP request for it);
 *               after a ClientHello the client's next bytes wait for
 *               the server's first message (server_first()), and after
 *               a HelloRetryRequest the second ClientHello is judged;
 *               then the client's records are walked (walk_client():
 *               no renegotiation); bytes that are neither TLS nor HTTP
 *               pass, read on for a request for TLS (other_bytes(),
 *               asks_for_tls(): STARTTLS), after which a ClientHello
 *               is judged again; the server's handshake is read until
 *               its change_cipher_spec for the TLS 1.2 tickets it issues
 *               (server_walk()): only those resume (hello_resume())
 *   REPLY       writing the proxy's own response (errors, 200 for CONNECT
 *               goes through RELAY instead), then
 *   DRAIN       discarding what the client still sends until it closes,
 *               so the kernel does not reset the connection under the
 *               reply (also after a plain-HTTP response)
 *
 * A plain-HTTP (non-CONNECT) connection carries exactly one request:
 * the proxy forwards its rewritten head and exactly Content-Length bytes
 * of body, then stops reading from the client; once the origin has
 * closed and the response is delivered, the connection drains and
 * closes.  A second, pipelined request is never parsed and never
 * forwarded, so it cannot name a host the allowlist did not check, and
 * a body whose length the origin might read differently is refused
 * before anything is forwarded.
 *
 * Why the proxy cannot be turned into a way to reach anything else:
 * the only outbound connect() is in conn_connect_next(), and it only
 * takes addresses from c->addrs, which conn_resolve() fills only with
 * addresses that conn_check_addr() allowed (rules_check_addr(), and not
 * an address of this machine), after rules_check_target() allowed the
 * host and port.  There is no second lookup between check and connect,
 * and nothing in a response is interpreted.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/util.h"
#include "proxy/http.h"
#include "proxy/ipc.h"
#include "proxy/proxy.h"
#include "proxy/resolver.h"
#include "proxy/rules.h"
#include "proxy/socks.h"
#include "proxy/tls.h"

#define RELAY_BUF	131072
#define MAX_ADDRS	16
#define DRAIN_MS	2000
#define DRAIN_BYTES	(256 * 1024)
#define ACCEPT_BURST	16
#define OVER_CAP_REPORT_MS 1000	/* connections closed over the cap:
					   one record a second at most */
#define ACCEPT_PAUSE_MS	250	/* listeners unwatched when out of
				   descriptors (EMFILE, ENFILE) */
#define RESOLVE_MS	30000

enum conn_state {
	ST_HEAD,
	ST_RESOLVING,
	ST_CONNECTING,
	ST_RELAY,
	ST_REPLY,
	ST_DRAIN,
};

/*
 * One direction of a relay.  Bytes the proxy produced or rewrote (the
 * forwarded head, "200 Connection established") sit in |data| and go
 * first; after that the payload moves socket -> pipe -> socket with
 * splice(), never entering user space.  If a pipe cannot be made the
 * payload goes through |data| instead.
 */
struct relaybuf {
	char	*data;
	size_t	 off, len;	/* user bytes are data[off..off+len) */
	int	 pipe[2];	/* -1: no pipe, copy through data */
	size_t	 plen;		/* bytes held in the pipe */
	size_t	 pcap;		/* the pipe's capacity */
};

#define PENDING(b)	((b)->len + (b)->plen)
#define PIPE_SIZE	(256 * 1024)

struct listener;

struct conn {
	struct conn		*next;
	struct listener		*l;
	int			 cfd, sfd;
	enum conn_state		 state;
	int			 counted;	/* counts toward max_conns */

	char			*head;
	size_t			 headlen;

	struct relaybuf		 up, down;	/* client->server, server->client */
	int			 c_eof, s_eof;	/* read side saw EOF */
	int			 s_shut, c_shut;/* we shut down the write side */
	int			 capped;	/* byte cap reached: flush and close */
	uint64_t		 id;		/* never 0 */
	int			 res_sent;	/* lookup handed to a resolver */
	int			 socks;		/* 1: SOCKS5 client */
	int			 socks_stage;	/* 0: greeting, 1: request */
	int			 framed;	/* plain HTTP: one request, then
						   up_left bytes of body */
	uint64_t		 up_left;	/* body bytes still to forward */
	int			 up_done;	/* the request is all forwarded */
	uint64_t		 drained;	/* bytes discarded in DRAIN */
	int			 hello_check;	/* a tunnel to a name: its first
						   bytes (a ClientHello, a
						   request head) wait in up.data
						   until hello_judge() lets
						   them go */
	int			 server_wait;	/* its ClientHello went: the
						   client's next bytes wait
						   (in |held| and its socket)
						   for the server's first
						   message (server_first()) */
	int			 hello_second;	/* the server asked for a
						   second ClientHello: the
						   held bytes are judged */
	int			 judge_due;	/* ... and are to be judged
						   now */
	int			 prelude;	/* a message asking for TLS
						   goes alone: what follows
						   it (in |held|) is judged
						   as the tunnel's start
						   once it went */
	int			 walking;	/* its ClientHello went: every
						   record the client sends
						   after it is walked (copied,
						   not spliced) */
	struct tls_walk		 walk;
	int			 asking;	/* its start passed as neither
						   TLS nor HTTP: the client's
						   bytes are read for a request
						   for TLS (STARTTLS), copied */
	struct tls_ask		 ask;
	int			 tls_due;	/* ... which went: what follows
						   must be a ClientHello */
	struct tls_resume	 resume;	/* what its ClientHello offers
						   to resume */
	struct tls_server_walk	*swalk;		/* the server's handshake, read
						   (copied) until what it
						   resumes is plain */
	unsigned char		 sfirst[TLS_SERVER_FIRST];
	size_t			 sfirstlen;	/* the server's first bytes */
	char			*held;		/* client bytes read behind
						   the ClientHello or the
						   request for TLS */
	size_t			 heldlen;

	struct sockaddr_storage	 addrs[MAX_ADDRS];
	socklen_t		 addrlens[MAX_ADDRS];
	size_t			 naddrs, next_addr;
	int			 connect_errno;

	/* What the event line reports. */
	char			 method[16];
	char			 host[RULES_HOST_MAX];
	uint16_t		 port;
	char			 address[INET6_ADDRSTRLEN];
	const char		*decision;	/* "allow", "deny", "error" */
	int			 evented;	/* its event line was written */
	char			 rule[RULES_REASON_MAX];
	char			 reason[RULES_REASON_MAX];
	int			 status;
	const char		*end;
	uint64_t		 bytes_up, bytes_down;
	int64_t			 start_wall, start_ms, last_ms, deadline_ms;
};

struct listener {
	struct listener		*next;
	int			 fd;
	char			 sandbox[PROXY_SANDBOX_ID_MAX + 1];
	struct rules		*rules;
	int			 nconns;	/* counted connections */
	int			 nextra;	/* over-cap replies in flight */
	int			 nlookups;	/* resolvers busy with its lookups */
	uint64_t		 over_cap;	/* closed with no reply since the
						   last over-cap record */
	int64_t			 over_cap_wall;	/* the first of them */
	int64_t			 over_cap_due;	/* their record is due then */
	struct resumable	*resumables;	/* RESUMABLE_MAX, a ring */
	size_t			 resumable_next;
};

/*
 * A TLS 1.2 ticket the proxy saw a server issue through a tunnel to a
 * host (resumable_key(): SHA-256 of the host and the ticket's hash).
 * Only these resume, and only for that host: in TLS 1.2 a resumed
 * session takes the server name it was made for.  The last
 * RESUMABLE_MAX of a sandbox are kept.
 */
#define RESUMABLE_MAX	1024
struct resumable {
	unsigned char		 key[SHA256_BYTES];
};

struct resolver_slot {
	int			 fd;		/* -1: gone */
	pid_t			 pid;
	uint64_t		 busy;		/* id of the lookup it runs, or 0 */
	int64_t			 deadline_ms;	/* of that lookup */
	struct listener		*owner;		/* whose lookup it runs (NULL: a
						   removed sandbox's) */
	int			 replacing;	/* the keeper was asked for a new
						   resolver in its place */
};

struct proxy {
	struct proxy_limits	 lim;
	struct resolver_slot	 res[PROXY_RESOLVERS_MAX];
	size_t			 nres, nres_live;
	int			 keeper_fd;	/* -1: none */
	uint64_t		 next_id;
	int			 event_fd;
	int			 ctl_fd;
	int			 ctl_closed;
	struct listener		*listeners;
	int64_t			 accept_resume_ms;	/* no accept() before */
	int			 accept_short;	/* out of descriptors: said so */
	struct conn		*conns;
	size_t			 nconns;
	struct pollfd		*pfds;
	void			**pown;		/* per pollfd: listener or conn */
	int			*pkind;		/* 0 listener, 1 client, 2 server,
						   3 control, 4 resolver,
						   5 resolver keeper */
	size_t			 pcap;
};

void
proxy_limits_default(struct proxy_limits *lim)
{
	lim->max_line = 8192;
	lim->max_header = 32768;
	lim->max_bytes = 0;
	lim->idle_ms = 60000;
	lim->connect_ms = 10000;
	lim->max_conns = 64;
}

struct proxy *
proxy_new(const struct proxy_limits *lim, int event_fd)
{
	struct proxy *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->lim = *lim;
	/* The head, rewritten, must fit the relay buffer with room to spare. */
	if (p->lim.max_header == 0 || p->lim.max_header > RELAY_BUF / 2)
		p->lim.max_header = RELAY_BUF / 2;
	if (p->lim.max_line == 0 || p->lim.max_line > p->lim.max_header)
		p->lim.max_line = p->lim.max_header;
	if (p->lim.max_conns <= 0)
		p->lim.max_conns = 1;
	if (p->lim.idle_ms <= 0)
		p->lim.idle_ms = 60000;
	if (p->lim.connect_ms <= 0)
		p->lim.connect_ms = 10000;
	p->event_fd = event_fd;
	p->ctl_fd = -1;
	p->keeper_fd = -1;
	return p;
}

static int
sandbox_id_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > PROXY_SANDBOX_ID_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == ':' || c == '-'))
			return 0;
	}
	return 1;
}

int
proxy_add_listener(struct proxy *p, int listen_fd, const char *sandbox,
    struct rules *rules)
{
	struct listener *l;

	if (!sandbox_id_valid(sandbox)) {
		close(listen_fd);
		rules_free(rules);
		return AL_ERR_FORMAT;
	}
	for (l = p->listeners; l != NULL; l = l->next) {
		if (strcmp(l->sandbox, sandbox) == 0) {
			close(listen_fd);
			rules_free(rules);
			return AL_ERR_CONFLICT;
		}
	}
	if (fd_set_nonblock(listen_fd, 1) != 0 ||
	    fd_set_cloexec(listen_fd, 1) != 0) {
		close(listen_fd);
		rules_free(rules);
		return AL_ERR_SYSTEM;
	}
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		close(listen_fd);
		rules_free(rules);
		return AL_ERR_ALLOC;
	}
	l->fd = listen_fd;
	l->rules = rules;
	snprintf(l->sandbox, sizeof(l->sandbox), "%s", sandbox);
	l->next = p->listeners;
	p->listeners = l;
	return 0;
}

int
proxy_add_resolver(struct proxy *p, int fd, pid_t pid)
{
	if (p->nres == PROXY_RESOLVERS_MAX) {
		close(fd);
		return AL_ERR_LIMIT;
	}
	(void)fd_set_nonblock(fd, 1);
	memset(&p->res[p->nres], 0, sizeof(p->res[0]));
	p->res[p->nres].fd = fd;
	p->res[p->nres].pid = pid;
	p->nres++;
	p->nres_live++;
	return 0;
}

void
proxy_set_resolver_keeper(struct proxy *p, int keeper_fd)
{
	p->keeper_fd = keeper_fd;
	(void)fd_set_nonblock(keeper_fd, 1);
}

void
proxy_set_control(struct proxy *p, int ctl_fd)
{
	p->ctl_fd = ctl_fd;
	(void)fd_set_nonblock(ctl_fd, 1);
}

size_t
proxy_nconns(const struct proxy *p)
{
	return p->nconns;
}

/* --- events --------------------------------------------------------------- */

/* Writes |o| (taken; NULL: nothing) as one line on the event descriptor. */
static void
event_write(struct proxy *p, json_t *o)
{
	char *s;

	if (o == NULL)
		return;
	s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	if (s == NULL)
		return;
	if (write_all(p->event_fd, s, strlen(s)) != 0 ||
	    write_all(p->event_fd, "\n", 1) != 0)
		log_warn("%s: event write", __func__);
	free(s);
}

static void
conn_event(struct proxy *p, struct conn *c)
{
	char ts[64];

	if (p->event_fd < 0 || c->evented)
		return;
	c->evented = 1;
	format_rfc3339(c->start_wall, ts);
	event_write(p, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:s, "
	    "s:i, s:I, s:I, s:I, s:s}",
	    "ts", ts,
	    "event", "proxy.connection",
	    "sandbox", c->l->sandbox,
	    "method", c->method,
	    "host", c->host,
	    "port", (int)c->port,
	    "address", c->address,
	    "decision", c->decision != NULL ? c->decision : "error",
	    "rule", c->rule,
	    "reason", c->reason,
	    "status", c->status,
	    "bytes_up", (json_int_t)c->bytes_up,
	    "bytes_down", (json_int_t)c->bytes_down,
	    "duration_ms", (json_int_t)(now_monotonic_ms() - c->start_ms),
	    "end", c->end != NULL ? c->end : "closed"));
}

/*
 * The connections of |l| closed over the cap since its last such record,
 * as one record (none when there were none).
 */
static void
over_cap_event(struct proxy *p, struct listener *l)
{
	char ts[64], reason[RULES_REASON_MAX];

	if (l->over_cap == 0)
		return;
	format_rfc3339(l->over_cap_wall, ts);
	snprintf(reason, sizeof(reason), "connection limit reached: %d "
	    "concurrent connections and %d refusals in flight: closed without "
	    "a reply", p->lim.max_conns, p->lim.max_conns);
	if (p->event_fd >= 0)
		event_write(p, json_pack("{s:s, s:s, s:s, s:I, s:s, s:s}",
		    "ts", ts,
		    "event", "proxy.over_cap",
		    "sandbox", l->sandbox,
		    "connections", (json_int_t)l->over_cap,
		    "decision", "deny",
		    "reason", reason));
	l->over_cap = 0;
}

/*
 * A connection of |l| was closed over the cap with no reply: counted, and
 * reported within OVER_CAP_REPORT_MS (expire()), so that a flood of them
 * makes a record a second, not one each.
 */
static void
over_cap_count(struct listener *l)
{
	if (l->over_cap++ == 0) {
		l->over_cap_wall = now_wall_ms();
		l->over_cap_due = now_monotonic_ms() + OVER_CAP_REPORT_MS;
	}
}

/* --- connection lifetime ---------------------------------------------------- */

static void
relay_pipe_close(struct relaybuf *b)
{
	if (b->pipe[0] >= 0)
		close(b->pipe[0]);
	if (b->pipe[1] >= 0)
		close(b->pipe[1]);
	b->pipe[0] = b->pipe[1] = -1;
	b->plen = 0;
}

/*
 * Gives |b| a pipe of PIPE_SIZE for splice(), or none: the relay then
 * copies through its RELAY_BUF buffer.  A smaller pipe is refused too:
 * the kernel's pipe budget is per user (fs.pipe-user-pages-soft), the
 * sandboxes run as the proxy's uid, and one that holds the budget makes
 * every new pipe 8 KiB, which relayed at a third of the speed.
 */
static void
relay_pipe_open(struct relaybuf *b)
{
	int sz;

	if (pipe2(b->pipe, O_NONBLOCK | O_CLOEXEC) == -1) {
		b->pipe[0] = b->pipe[1] = -1;
		return;
	}
	(void)fcntl(b->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
	if ((sz = fcntl(b->pipe[1], F_GETPIPE_SZ)) < PIPE_SIZE) {
		relay_pipe_close(b);
		return;
	}
	b->pcap = (size_t)sz;
}

static void
conn_close(struct proxy *p, struct conn *c)
{
	struct conn **pp;

	conn_event(p, c);
	for (pp = &p->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	if (c->counted)
		c->l->nconns--;
	else
		c->l->nextra--;
	p->nconns--;
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->sfd >= 0)
		close(c->sfd);
	relay_pipe_close(&c->up);
	relay_pipe_close(&c->down);
	free(c->head);
	free(c->held);
	free(c->swalk);
	free(c->up.data);
	free(c->down.data);
	free(c);
}

int
proxy_remove_listener(struct proxy *p, const char *sandbox)
{
	struct listener **lp, *l;
	struct conn *c, *next;
	size_t i;

	for (lp = &p->listeners; *lp != NULL; lp = &(*lp)->next)
		if (strcmp((*lp)->sandbox, sandbox) == 0)
			break;
	if ((l = *lp) == NULL)
		return AL_ERR_NOT_FOUND;
	/* Its lookups still running end with nobody to answer. */
	for (i = 0; i < p->nres; i++)
		if (p->res[i].owner == l)
			p->res[i].owner = NULL;
	for (c = p->conns; c != NULL; c = next) {
		next = c->next;
		if (c->l == l) {
			c->end = "sandbox removed";
			conn_close(p, c);
		}
	}
	over_cap_event(p, l);
	*lp = l->next;
	close(l->fd);
	rules_free(l->rules);
	free(l->resumables);
	free(l);
	return 0;
}

void
proxy_free(struct proxy *p)
{
	size_t i;

	if (p == NULL)
		return;
	while (p->listeners != NULL)
		(void)proxy_remove_listener(p, p->listeners->sandbox);
	if (p->ctl_fd >= 0)
		close(p->ctl_fd);
	if (p->event_fd >= 0)
		close(p->event_fd);
	if (p->keeper_fd >= 0)
		close(p->keeper_fd);
	for (i = 0; i < p->nres; i++)
		if (p->res[i].fd >= 0)
			close(p->res[i].fd);
	free(p->pfds);
	free(p->pown);
	free(p->pkind);
	free(p);
}

/* Header values must not carry CR/LF or other controls. */
static void
sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

static const char *
status_text(int status)
{
	switch (status) {
	case 400:	return "Bad Request";
	case 403:	return "Forbidden";
	case 405:	return "Method Not Allowed";
	case 411:	return "Length Required";
	case 429:	return "Too Many Requests";
	case 431:	return "Request Header Fields Too Large";
	case 502:	return "Bad Gateway";
	case 504:	return "Gateway Timeout";
	}
	return "Error";
}

/*
 * Ends |c| with the proxy's own response.  |decision| is "deny" for a
 * policy refusal and "error" otherwise.
 */
static void
conn_refuse(struct proxy *p, struct conn *c, int status, const char *decision,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
conn_refuse(struct proxy *p, struct conn *c, int status, const char *decision,
    const char *fmt, ...)
{
	va_list ap;
	char *resp;
	int n;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	sanitize(c->reason);
	c->status = status;
	c->decision = decision;
	/*
	 * A refusal is reported before the client can read it: whoever
	 * waits for the sandbox's end then has the event in the pipe.
	 */
	if (strcmp(decision, "deny") == 0)
		conn_event(p, c);
	if (c->sfd >= 0) {
		close(c->sfd);
		c->sfd = -1;
	}
	free(c->head);
	c->head = NULL;
	free(c->up.data);
	c->up.data = NULL;
	c->up.len = 0;
	free(c->down.data);
	if (c->socks) {
		/* RFC 1928 reply codes for the HTTP statuses used here. */
		unsigned char rep = status == 403 || status == 429 ? 0x02 :
		    status == 502 || status == 504 ? 0x04 : 0x01;

		if (c->socks_stage == 0)
			n = asprintf(&resp, "%c%c", 5, 0xff);
		else
			n = asprintf(&resp, "%c%c%c%c%c%c%c%c%c%c", 5, rep, 0, 1,
			    0, 0, 0, 0, 0, 0);
	} else
		n = asprintf(&resp, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n"
	    "X-Airlock-Reason: %s\r\n"
	    "\r\n"
	    "airlock proxy: %s\n",
	    status, status_text(status), strlen(c->reason) + 15, c->reason,
	    c->reason);
	if (n < 0) {
		c->down.data = NULL;
		c->down.len = 0;
		c->end = "out of memory";
		conn_close(p, c);
		return;
	}
	c->down.data = resp;
	c->down.off = 0;
	c->down.len = (size_t)n;
	c->state = ST_REPLY;
	c->last_ms = now_monotonic_ms();
	log_debug("%s: %s %s:%u: %d %s", c->l->sandbox, c->method, c->host,
	    c->port, status, c->reason);
}

/* --- request head ------------------------------------------------------------ */

/* Is header |name| (|n| bytes) one the proxy removes before forwarding? */
static int
header_dropped(const char *name, size_t n, const char *conn_tokens)
{
	static const char *drop[] = {
		"host", "connection", "keep-alive", "te", "trailer", "upgrade",
		NULL
	};
	const char *t = conn_tokens;
	size_t i, tl;

	if (n >= 6 && strncasecmp(name, "proxy-", 6) == 0)
		return 1;
	for (i = 0; drop[i] != NULL; i++)
		if (strlen(drop[i]) == n && strncasecmp(name, drop[i], n) == 0)
			return 1;
	/* Headers the client named in Connection are hop-by-hop too. */
	while (*t != '\0') {
		t += strspn(t, " \t,");
		tl = strcspn(t, " \t,");
		if (tl == n && strncasecmp(t, name, n) == 0)
			return 1;
		t += tl;
	}
	return 0;
}

/* Collects the values of every Connection header of the parsed head. */
static void
connection_tokens(const char *buf, const struct http_head *h, char *out,
    size_t outlen)
{
	const struct http_field *f;
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (!http_field_is(buf, f, "connection"))
			continue;
		if (len + f->value.len + 2 > outlen)
			break;
		memcpy(out + len, buf + f->value.off, f->value.len);
		len += f->value.len;
		out[len++] = ',';
		out[len] = '\0';
	}
}

/* Appends |n| bytes to a growing output (bounded by the head's size). */
static void
out_add(char *out, size_t *olen, size_t cap, const char *s, size_t n)
{
	if (*olen + n > cap)
		n = cap - *olen;
	memcpy(out + *olen, s, n);
	*olen += n;
}

/*
 * Completes the one request |c| forwards, whose head |h| is at the start
 * of |buf| and |rest| bytes follow it: after the |olen| bytes already in
 * |out| (|ocap| bytes), the head's fields that go on (hop-by-hop ones
 * and those Connection names dropped, Host too unless |keep_host|),
 * "Connection: close", the blank line, then exactly the declared body
 * and not a byte more.  Sets c->framed, c->up_left, c->up_done and
 * c->bytes_up (the body forwarded: the head is not counted against the
 * byte cap).  Returns the bytes in |out|, or 0 when they do not fit.
 */
static size_t
request_frame(struct conn *c, const char *buf, const struct http_head *h,
    size_t rest, int keep_host, char *out, size_t olen, size_t ocap)
{
	const struct http_field *f;
	char ctok[1024];
	size_t i, fwd = rest;

	if (fwd > h->content_length)
		fwd = (size_t)h->content_length;
	connection_tokens(buf, h, ctok, sizeof(ctok));
	for (i = 0; i < h->nfields; i++) {
		f = &h->fields[i];
		if (!(keep_host && http_field_is(buf, f, "host")) &&
		    header_dropped(buf + f->name.off, f->name.len, ctok))
			continue;
		out_add(out, &olen, ocap, buf + f->name.off, f->name.len);
		out_add(out, &olen, ocap, ": ", 2);
		out_add(out, &olen, ocap, buf + f->value.off, f->value.len);
		out_add(out, &olen, ocap, "\r\n", 2);
	}
	out_add(out, &olen, ocap, "Connection: close\r\n\r\n", 21);
	if (olen + fwd >= ocap)		/* olen == ocap: truncated */
		return 0;
	if (fwd == h->content_length) {
		c->up_done = 1;
		if (rest > fwd)
			c->end = "bytes after the request not forwarded";
	}
	c->up_left = h->content_length - fwd;
	c->framed = 1;
	memcpy(out + olen, buf + h->len, fwd);
	c->bytes_up = fwd;
	return olen + fwd;
}

static void conn_resolve(struct proxy *, struct conn *, const struct rules_target *);
static void resolver_replace(struct proxy *, struct resolver_slot *);
static void socks_head(struct proxy *, struct conn *);
static void hello_judge(struct proxy *, struct conn *, int);
static int server_first(struct conn *, const char *, size_t);

/*
 * Decides on a complete, checked head |h| (bytes after it are the start
 * of the body or of the tunnelled stream).  A plain-HTTP request is
 * forwarded alone: its head rewritten, then exactly h->content_length
 * bytes of body; nothing the client sends after that reaches the origin.
 */
/*
 * The destination |auth| (|alen| bytes: "host:port", or "host" with the
 * port |defport|; 0: none) parsed into *t and checked against the
 * listener's rules.  0 with c->host and c->port set; -1 when the
 * connection was refused (400 for a bad destination, 403 for one the
 * rules deny, c->rule naming the rule).
 */
static int
conn_destination(struct proxy *p, struct conn *c, const char *auth,
    size_t alen, uint16_t defport, struct rules_target *t)
{
	char why[RULES_REASON_MAX];

	if (rules_parse_authority(auth, alen, defport, t, why,
	    sizeof(why)) != 0) {
		snprintf(c->host, sizeof(c->host), "%.*s", (int)(alen <
		    sizeof(c->host) ? alen : sizeof(c->host) - 1), auth);
		sanitize(c->host);
		conn_refuse(p, c, 400, "error", "bad destination: %s", why);
		return -1;
	}
	snprintf(c->host, sizeof(c->host), "%s", t->host);
	c->port = t->port;
	/* The record names a literal's address, refused or not. */
	if (t->family != 0 && inet_ntop(t->family, t->addr, c->address,
	    sizeof(c->address)) == NULL)
		c->address[0] = '\0';
	if (!rules_check_target(c->l->rules, t, c->rule, sizeof(c->rule),
	    why, sizeof(why))) {
		conn_refuse(p, c, 403, "deny", "%s", why);
		return -1;
	}
	return 0;
}

static void
conn_request(struct proxy *p, struct conn *c, const struct http_head *h)
{
	struct rules_target t;
	const char *target, *auth, *path, *ver;
	char why[RULES_REASON_MAX], *out;
	size_t tlen, alen, plen, olen = 0, ocap, rest, fwd;

	target = c->head + h->target.off;
	tlen = h->target.len;
	ver = h->minor == 1 ? "HTTP/1.1" : "HTTP/1.0";
	if (h->is_connect) {
		auth = target;
		alen = tlen;
		path = NULL;
		plen = 0;
	} else {
		if (tlen >= 8 && strncasecmp(target, "https://", 8) == 0) {
			conn_refuse(p, c, 400, "error", "https URLs go through "
			    "CONNECT");
			return;
		}
		if (tlen < 7 || strncasecmp(target, "http://", 7) != 0) {
			conn_refuse(p, c, 400, "error", "only absolute http:// "
			    "request targets are proxied");
			return;
		}
		auth = target + 7;
		for (alen = 0; alen < tlen - 7; alen++)
			if (strchr("/?#", auth[alen]) != NULL)
				break;
		path = auth + alen;
		plen = tlen - 7 - alen;
		if (memchr(path, '#', plen) != NULL) {
			conn_refuse(p, c, 400, "error", "fragment in request "
			    "target");
			return;
		}
	}
	if (conn_destination(p, c, auth, alen, h->is_connect ? 0 : 80,
	    &t) != 0)
		return;

	rest = c->headlen - h->len;
	fwd = rest;
	if (!h->is_connect && fwd > h->content_length)
		fwd = (size_t)h->content_length;
	if (p->lim.max_bytes != 0 && fwd > p->lim.max_bytes) {
		conn_refuse(p, c, 400, "error", "request body larger than "
		    "the byte cap");
		return;
	}
	if ((c->up.data = malloc(RELAY_BUF)) == NULL ||
	    (c->down.data = malloc(RELAY_BUF)) == NULL) {
		conn_refuse(p, c, 502, "error", "out of memory");
		return;
	}
	if (h->is_connect) {
		/* Tunnelled bytes the client sent early go first. */
		memcpy(c->up.data, c->head + h->len, rest); /* rest < max_header */
		c->up.len = rest;
		c->bytes_up = rest;
		c->hello_check = t.family == 0;
	} else {
		/* Origin-form request; only this one request goes through. */
		ocap = RELAY_BUF;
		out = c->up.data;
		out_add(out, &olen, ocap, h->method, strlen(h->method));
		out_add(out, &olen, ocap, " ", 1);
		if (plen == 0 || *path == '?')
			out_add(out, &olen, ocap, "/", 1);
		out_add(out, &olen, ocap, path, plen);
		out_add(out, &olen, ocap, " ", 1);
		out_add(out, &olen, ocap, ver, strlen(ver));
		/* The URI's authority wins: the client's Host is replaced. */
		out_add(out, &olen, ocap, "\r\nHost: ", 8);
		if (t.family == AF_INET6)
			out_add(out, &olen, ocap, "[", 1);
		out_add(out, &olen, ocap, t.host, strlen(t.host));
		if (t.family == AF_INET6)
			out_add(out, &olen, ocap, "]", 1);
		if (t.port != 80) {
			snprintf(why, sizeof(why), ":%u", t.port);
			out_add(out, &olen, ocap, why, strlen(why));
		}
		out_add(out, &olen, ocap, "\r\n", 2);
		if ((c->up.len = request_frame(c, c->head, h, rest, 0, out,
		    olen, ocap)) == 0) {
			conn_refuse(p, c, 431, "error", "request head larger "
			    "than the relay buffer");
			return;
		}
	}
	free(c->head);
	c->head = NULL;
	c->headlen = 0;
	c->status = h->is_connect ? 200 : 0;
	conn_resolve(p, c, &t);
}

/* --- resolution and connect ---------------------------------------------------- */

static void conn_connect_next(struct proxy *, struct conn *);

static void
addr_to_str(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
	const void *a;

	if (ss->ss_family == AF_INET)
		a = &((const struct sockaddr_in *)ss)->sin_addr;
	else
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (inet_ntop(ss->ss_family, a, out, (socklen_t)outlen) == NULL)
		snprintf(out, outlen, "?");
}

/*
 * Is |ss| an address of this machine?  Whatever its class, connecting
 * to one reaches the host's own services, as 127.0.0.1 does.  The kernel
 * tells: the route it would use for |ss| (RTM_GETROUTE, what "ip route
 * get" asks) is of type RTN_LOCAL exactly when a packet to |ss| is
 * delivered here.  The source address a connection would use is not
 * enough: a secondary address's local route has the primary address as
 * its source, and so has every other address of a prefix on lo or of
 * an "AnyIP" local route, which no interface holds.  Returns 1, 0, or
 * -1 (errno set) when it cannot tell.
 */
static int
addr_is_own(const struct sockaddr_storage *ss)
{
	struct {
		struct nlmsghdr	nh;
		struct rtmsg	rt;
		char		attr[RTA_SPACE(16)];
	} req;
	union {
		struct nlmsghdr	nh;
		char		buf[4096];
	} rep;
	struct sockaddr_nl kernel;
	struct rtattr *rta;
	const struct nlmsgerr *ne;
	const struct rtmsg *rt;
	const void *a;
	size_t alen;
	ssize_t n;
	int fd, e, family = ss->ss_family;

	if (family == AF_INET) {
		a = &((const struct sockaddr_in *)ss)->sin_addr;
		alen = 4;
	} else {
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
		alen = 16;
		/* An IPv6 socket connects to ::ffff:a.b.c.d over IPv4. */
		if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a)) {
			family = AF_INET;
			a = (const unsigned char *)a + 12;
			alen = 4;
		}
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt)) + RTA_LENGTH(alen);
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	rta = (struct rtattr *)(void *)req.attr;
	rta->rta_type = RTA_DST;
	rta->rta_len = RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), a, alen);
	memset(&kernel, 0, sizeof(kernel));
	kernel.nl_family = AF_NETLINK;
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_ROUTE)) == -1)
		return -1;
	/* The kernel answers within sendto(): the reply is queued. */
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
	    sizeof(kernel)) != (ssize_t)req.nh.nlmsg_len ||
	    (n = recv(fd, &rep, sizeof(rep), MSG_DONTWAIT)) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	errno = EPROTO;
	if (!NLMSG_OK(&rep.nh, (size_t)n) || rep.nh.nlmsg_seq != 1)
		return -1;
	if (rep.nh.nlmsg_type == NLMSG_ERROR) {
		if (rep.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*ne)))
			return -1;
		ne = NLMSG_DATA(&rep.nh);
		if (ne->error >= 0)
			return -1;
		errno = -ne->error;
		/* No route: a TCP connect() fails the same way. */
		return errno == ENETUNREACH || errno == EHOSTUNREACH ? 0 : -1;
	}
	if (rep.nh.nlmsg_type != RTM_NEWROUTE ||
	    rep.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
		return -1;
	rt = NLMSG_DATA(&rep.nh);
	return rt->rtm_type == RTN_LOCAL;
}

/*
 * May |c| connect to |ss|?  rules_check_addr(); and an address this
 * machine holds is refused like loopback, unless an IP rule names it.
 * 1, or 0 with |reason| set.
 */
static int
conn_check_addr(const struct conn *c, const struct sockaddr_storage *ss,
    char *rule, size_t rulelen, char *reason, size_t reasonlen)
{
	char as[INET6_ADDRSTRLEN];

	if (!rules_check_addr(c->l->rules, (const struct sockaddr *)ss,
	    c->port, rule, rulelen, reason, reasonlen))
		return 0;
	if (strncmp(rule, "allow-ip", 8) == 0)
		return 1;
	addr_to_str(ss, as, sizeof(as));
	switch (addr_is_own(ss)) {
	case 0:
		return 1;
	case 1:
		snprintf(reason, reasonlen, "address %s is this machine's own "
		    "(it reaches the host's services)", as);
		return 0;
	default:
		snprintf(reason, reasonlen, "cannot tell whether address %s "
		    "is this machine's own: %s", as, strerror(errno));
		return 0;
	}
}

/*
 * Takes the answer of a lookup for c->host: checks EVERY address, keeps
 * (at most MAX_ADDRS of) the checked ones and connects.
 */
static void
conn_resolved(struct proxy *p, struct conn *c, const struct resolver_rep *rep)
{
	char reason[RULES_REASON_MAX], rule[RULES_REASON_MAX];
	struct sockaddr_storage *ss;
	uint32_t i;
	size_t n;

	c->naddrs = 0;
	if (rep->gai_rc != 0) {
		conn_refuse(p, c, 502, "error", "cannot resolve %s: %s",
		    c->host, rep->gai_rc == RESOLVER_TOO_MANY ?
		    "too many addresses" : gai_strerror(rep->gai_rc));
		return;
	}
	for (i = 0; i < rep->naddrs && i < RESOLVER_MAX_ADDRS; i++) {
		ss = (struct sockaddr_storage *)&rep->addrs[i];
		if ((ss->ss_family != AF_INET && ss->ss_family != AF_INET6) ||
		    rep->lens[i] > sizeof(*ss))
			continue;
		/* Every address is checked, even ones not used. */
		if (!conn_check_addr(c, ss, rule, sizeof(rule), reason,
		    sizeof(reason))) {
			c->naddrs = 0;
			addr_to_str(ss, c->address, sizeof(c->address));
			conn_refuse(p, c, 403, "deny", "%s (%s resolves to it)",
			    reason, c->host);
			return;
		}
		if (c->naddrs == MAX_ADDRS)
			continue;
		memcpy(&c->addrs[c->naddrs], ss, rep->lens[i]);
		c->addrlens[c->naddrs] = (socklen_t)rep->lens[i];
		if (ss->ss_family == AF_INET)
			((struct sockaddr_in *)&c->addrs[c->naddrs])->sin_port =
			    htons(c->port);
		else
			((struct sockaddr_in6 *)&c->addrs[c->naddrs])->
			    sin6_port = htons(c->port);
		c->naddrs++;
	}
	if (c->naddrs == 0) {
		conn_refuse(p, c, 502, "error", "%s has no usable address",
		    c->host);
		return;
	}
	/* Name the address rule too when it was an exception. */
	(void)rules_check_addr(c->l->rules, (struct sockaddr *)&c->addrs[0],
	    c->port, rule, sizeof(rule), reason, sizeof(reason));
	if (strncmp(rule, "allow-ip", 8) == 0) {
		n = strlen(c->rule);
		snprintf(c->rule + n, sizeof(c->rule) - n, ", %s", rule);
	}
	c->next_addr = 0;
	conn_connect_next(p, c);
}

/*
 * The most lookups one sandbox may have running: all resolvers but one,
 * so that a sandbox whose names never resolve (a DNS server that does
 * not answer, a zone whose server hangs) leaves a resolver to the
 * others' lookups.
 */
static int
lookups_cap(const struct proxy *p)
{
	return p->nres > 1 ? (int)p->nres - 1 : 1;
}

/* The oldest waiting lookup of a sandbox under its cap, or NULL. */
static struct conn *
next_lookup(struct proxy *p)
{
	struct conn *c, *best = NULL;

	for (c = p->conns; c != NULL; c = c->next)
		if (c->state == ST_RESOLVING && !c->res_sent &&
		    c->l->nlookups < lookups_cap(p) &&
		    (best == NULL || c->id < best->id))
			best = c;
	return best;
}

/* Hands waiting lookups to idle resolver processes. */
static void
dispatch_resolves(struct proxy *p)
{
	struct resolver_req req;
	struct resolver_slot *slot;
	struct conn *c;
	size_t i;

	for (i = 0; i < p->nres; i++) {
		slot = &p->res[i];
		if (slot->fd < 0 || slot->busy != 0)
			continue;
		if ((c = next_lookup(p)) == NULL)
			return;
		memset(&req, 0, sizeof(req));
		req.id = c->id;
		snprintf(req.host, sizeof(req.host), "%s", c->host);
		if (send(slot->fd, &req, sizeof(req), MSG_NOSIGNAL) !=
		    sizeof(req)) {
			log_warn("%s: resolver", __func__);
			resolver_replace(p, slot);
			continue;
		}
		slot->busy = c->id;
		slot->deadline_ms = now_monotonic_ms() + PROXY_LOOKUP_MS;
		slot->owner = c->l;
		c->l->nlookups++;
		c->res_sent = 1;
	}
}

/* The slot's lookup is over (answered, failed or abandoned). */
static void
resolver_release(struct resolver_slot *slot)
{
	if (slot->busy != 0 && slot->owner != NULL)
		slot->owner->nlookups--;
	slot->busy = 0;
	slot->owner = NULL;
}

/*
 * Drops a resolver that hung or died and asks the keeper to kill it and
 * start another in its place; keeper_input() fills the slot again.  A
 * killed lookup can only be cut short this way: getaddrinfo() cannot be
 * interrupted from outside its process.
 */
static void
resolver_replace(struct proxy *p, struct resolver_slot *slot)
{
	struct resolver_keep_req req;

	resolver_release(slot);
	if (slot->fd >= 0) {
		close(slot->fd);
		slot->fd = -1;
		p->nres_live--;
	}
	memset(&req, 0, sizeof(req));
	req.kill_pid = (int32_t)slot->pid;
	slot->pid = 0;
	if (p->keeper_fd >= 0 && send(p->keeper_fd, &req, sizeof(req),
	    MSG_NOSIGNAL) == sizeof(req))
		slot->replacing = 1;
	else
		log_warnx("%s: resolver not replaced", __func__);
}

/* The keeper sent a new resolver (or went away). */
static void
keeper_input(struct proxy *p)
{
	struct resolver_keep_rep rep;
	size_t len, i;
	int fd, rc;

	rc = proxy_recv_fd(p->keeper_fd, &fd, &rep, sizeof(rep), &len);
	if (rc < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (rc != 1) {
		log_warnx("%s: resolver keeper gone", __func__);
		close(p->keeper_fd);
		p->keeper_fd = -1;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;	/* reap it */
		for (i = 0; i < p->nres; i++)
			p->res[i].replacing = 0;
		return;
	}
	for (i = 0; i < p->nres; i++)
		if (p->res[i].replacing)
			break;
	if (i == p->nres || len != sizeof(rep) || fd < 0 || rep.pid <= 0) {
		if (fd >= 0)
			close(fd);
		if (i < p->nres)
			p->res[i].replacing = 0;
		log_warnx("%s: no new resolver", __func__);
		return;
	}
	(void)fd_set_nonblock(fd, 1);
	p->res[i].fd = fd;
	p->res[i].pid = rep.pid;
	p->res[i].replacing = 0;
	p->nres_live++;
	dispatch_resolves(p);
}

/* A resolver answered (or died). */
static void
resolver_input(struct proxy *p, struct resolver_slot *slot)
{
	static struct resolver_rep rep;
	struct conn *c;
	uint64_t busy = slot->busy;
	ssize_t n;

	n = recv(slot->fd, &rep, sizeof(rep), 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != (ssize_t)sizeof(rep)) {
		log_warnx("%s: resolver process gone", __func__);
		resolver_replace(p, slot);
		memset(&rep, 0, sizeof(rep));
		rep.id = busy;
		rep.gai_rc = EAI_SYSTEM;
	} else if (rep.id != busy)
		return;		/* not the lookup it was given */
	else
		resolver_release(slot);
	for (c = p->conns; c != NULL; c = c->next)
		if (c->id == rep.id && c->state == ST_RESOLVING)
			break;
	if (c != NULL && rep.id != 0) {
		if (n != (ssize_t)sizeof(rep))
			conn_refuse(p, c, 502, "error", "cannot resolve %s: "
			    "resolver process failed", c->host);
		else
			conn_resolved(p, c, &rep);
	}
	dispatch_resolves(p);
}

/*
 * Lookups past their deadline: the client gets 504 and the resolver,
 * still inside getaddrinfo(), is killed and replaced.
 */
static void
expire_lookups(struct proxy *p, int64_t now)
{
	struct resolver_slot *slot;
	struct conn *c;
	uint64_t id;
	size_t i;
	int n = 0;

	for (i = 0; i < p->nres; i++) {
		slot = &p->res[i];
		if (slot->fd < 0 || slot->busy == 0 || now < slot->deadline_ms)
			continue;
		n++;
		id = slot->busy;
		resolver_replace(p, slot);
		for (c = p->conns; c != NULL; c = c->next)
			if (c->id == id && c->state == ST_RESOLVING)
				break;
		if (c != NULL)
			conn_refuse(p, c, 504, "error", "name lookup of %s "
			    "timed out: no answer within %d s", c->host,
			    PROXY_LOOKUP_MS / 1000);
	}
	if (n > 0)
		dispatch_resolves(p);
}

static void
conn_resolve(struct proxy *p, struct conn *c, const struct rules_target *t)
{
	static struct resolver_rep rep;
	struct resolver_req req;
	struct sockaddr_in *s4;
	struct sockaddr_in6 *s6;
	char rule[RULES_REASON_MAX], reason[RULES_REASON_MAX];

	c->naddrs = 0;
	if (t->family == AF_INET) {
		s4 = (struct sockaddr_in *)&c->addrs[0];
		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, t->addr, 4);
		s4->sin_port = htons(t->port);
		c->addrlens[0] = sizeof(*s4);
		c->naddrs = 1;
	} else if (t->family == AF_INET6) {
		s6 = (struct sockaddr_in6 *)&c->addrs[0];
		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, t->addr, 16);
		s6->sin6_port = htons(t->port);
		c->addrlens[0] = sizeof(*s6);
		c->naddrs = 1;
	} else if (p->nres > 0) {
		/*
		 * Only names that passed the allowlist get here.  The answer
		 * is used once and never looked up again.
		 */
		c->state = ST_RESOLVING;
		c->res_sent = 0;
		c->deadline_ms = now_monotonic_ms() + RESOLVE_MS;
		dispatch_resolves(p);
		return;
	} else {
		/* No resolver process: a blocking lookup in the loop. */
		memset(&req, 0, sizeof(req));
		req.id = c->id;
		snprintf(req.host, sizeof(req.host), "%s", c->host);
		proxy_resolve(&req, &rep);
		conn_resolved(p, c, &rep);
		return;
	}
	/* A literal passed rules_check_target(); is it this machine's? */
	if (!conn_check_addr(c, &c->addrs[0], rule, sizeof(rule), reason,
	    sizeof(reason))) {
		c->naddrs = 0;
		addr_to_str(&c->addrs[0], c->address, sizeof(c->address));
		conn_refuse(p, c, 403, "deny", "%s", reason);
		return;
	}
	c->next_addr = 0;
	conn_connect_next(p, c);
}

static void
conn_connect_next(struct proxy *p, struct conn *c)
{
	struct sockaddr_storage *ss;
	int fd;

	while (c->next_addr < c->naddrs) {
		ss = &c->addrs[c->next_addr];
		addr_to_str(ss, c->address, sizeof(c->address));
		fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, IPPROTO_TCP);
		if (fd == -1) {
			c->connect_errno = errno;
			c->next_addr++;
			continue;
		}
		if (connect(fd, (struct sockaddr *)ss,
		    c->addrlens[c->next_addr]) == 0 || errno == EINPROGRESS) {
			c->sfd = fd;
			c->state = ST_CONNECTING;
			c->deadline_ms = now_monotonic_ms() + p->lim.connect_ms;
			return;
		}
		c->connect_errno = errno;
		close(fd);
		c->next_addr++;
	}
	conn_refuse(p, c, 502, "error", "connect to %s port %u failed: %s",
	    c->address, c->port, strerror(c->connect_errno));
}

static void
conn_connected(struct proxy *p, struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err != 0) {
		c->connect_errno = err;
		close(c->sfd);
		c->sfd = -1;
		c->next_addr++;
		conn_connect_next(p, c);
		return;
	}
	c->decision = "allow";
	c->state = ST_RELAY;
	relay_pipe_open(&c->up);
	relay_pipe_open(&c->down);
	c->last_ms = now_monotonic_ms();
	if (c->socks) {
		static const char ok[] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

		memcpy(c->down.data, ok, sizeof(ok));
		c->down.off = 0;
		c->down.len = sizeof(ok);
	} else if (c->status == 200) {
		static const char ok[] =
		    "HTTP/1.1 200 Connection established\r\n\r\n";

		memcpy(c->down.data, ok, sizeof(ok) - 1);
		c->down.off = 0;
		c->down.len = sizeof(ok) - 1;
	}
	log_debug("%s: %s %s:%u via %s: %s", c->l->sandbox, c->method,
	    c->host, c->port, c->address, c->rule);
	/* What the client sent with its request is judged first. */
	if (c->hello_check && c->up.len > 0)
		hello_judge(p, c, 0);
}

/* --- SOCKS5 (RFC 1928, CONNECT with no authentication only) ------------------- */

/*
 * Parses what has arrived of a SOCKS5 greeting and request
 * (proxy/socks.h).  A SOCKS5 CONNECT is decided exactly like an HTTP
 * CONNECT: the same authority parser (so a domain with odd bytes or a
 * non-canonical IPv4 literal is refused), the same rules, the same
 * resolution and address checks.
 */
static void
socks_head(struct proxy *p, struct conn *c)
{
	const unsigned char *h = (const unsigned char *)c->head;
	struct socks_greeting g;
	struct socks_request r;
	struct rules_target t;
	size_t need, rest;
	int rc;

	c->socks = 1;
	snprintf(c->method, sizeof(c->method), "SOCKS5");
	if (c->socks_stage == 0) {
		if ((rc = socks_greeting_parse(h, c->headlen, &g)) == 0)
			return;
		if (rc < 0) {
			conn_refuse(p, c, 400, "error", "%s", g.why);
			return;
		}
		/* A fresh socket's send buffer always takes two bytes. */
		if (send(c->cfd, "\x05\x00", 2, MSG_NOSIGNAL) != 2) {
			c->end = "client reset";
			conn_close(p, c);
			return;
		}
		memmove(c->head, c->head + g.len, c->headlen - g.len);
		c->headlen -= g.len;
		c->socks_stage = 1;
	}
	if ((rc = socks_request_parse(h, c->headlen, &r)) == 0)
		return;
	if (rc < 0) {
		conn_refuse(p, c, 400, "error", "%s", r.why);
		return;
	}
	need = r.len;
	if (conn_destination(p, c, r.authority, strlen(r.authority), 0,
	    &t) != 0)
		return;
	rest = c->headlen - need;
	if (p->lim.max_bytes != 0 && rest > p->lim.max_bytes) {
		conn_refuse(p, c, 400, "error", "early data larger than the "
		    "byte cap");
		return;
	}
	if ((c->up.data = malloc(RELAY_BUF)) == NULL ||
	    (c->down.data = malloc(RELAY_BUF)) == NULL) {
		conn_refuse(p, c, 502, "error", "out of memory");
		return;
	}
	memcpy(c->up.data, c->head + need, rest);	/* rest < max_header */
	c->up.len = rest;
	c->bytes_up = rest;
	c->hello_check = t.family == 0;
	free(c->head);
	c->head = NULL;
	c->headlen = 0;
	c->status = 200;
	conn_resolve(p, c, &t);
}

/* --- the first bytes of a tunnel to a name -------------------------------------- */

/*
 * Ends the tunnel |c| before any of its bytes went upstream: what the
 * client sent first (a ClientHello, a request head) names another server
 * than the CONNECT host, or none, or cannot be read.  |end| goes in the
 * record.
 */
static void
hello_refuse(struct proxy *p, struct conn *c, const char *decision,
    const char *end, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Puts the refusal of the tunnel |c| in its record. */
static void refusal_record(struct conn *c, const char *decision,
    const char *end, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void
refusal_record(struct conn *c, const char *decision, const char *end,
    const char *fmt, va_list ap)
{
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	sanitize(c->reason);
	c->status = 403;
	c->decision = decision;
	c->end = end;
}

static void
hello_refuse(struct proxy *p, struct conn *c, const char *decision,
    const char *end, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	refusal_record(c, decision, end, fmt, ap);
	va_end(ap);
	conn_close(p, c);
}

#define END_SNI		"TLS server name refused"
#define END_HTTP	"HTTP request in the tunnel refused"
#define END_RECORD	"TLS record refused"

static int tunnel_refused(struct conn *, const char *, const char *, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Records why the tunnel |c| is refused after it started (|end| in the
 * record); returns -1 for the caller to close it.
 */
static int
tunnel_refused(struct conn *c, const char *end, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	refusal_record(c, "deny", end, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Walks |len| bytes the client of the tunnel |c| sends after its checked
 * ClientHello (tls_walk()).  Returns 0, or -1 with the refusal in |c|'s
 * record (the caller closes it): none of those bytes went.
 */
static int
walk_client(struct conn *c, const char *buf, size_t len)
{
	char why[TLS_WHY_MAX];

	if (!c->walking ||
	    tls_walk(&c->walk, (const unsigned char *)buf, len, why) == 0)
		return 0;
	return tunnel_refused(c, END_RECORD, "%s", why);
}

/* The ring's key of the ticket |hash| issued for |host|. */
static void
resumable_key(const char *host, const unsigned char hash[TLS_HASH],
    unsigned char key[SHA256_BYTES])
{
	unsigned char in[RULES_HOST_MAX + TLS_HASH];
	size_t n = strlen(host) + 1;

	memcpy(in, host, n);
	memcpy(in + n, hash, TLS_HASH);
	sha256(key, in, n + TLS_HASH);
}

/* Was the ticket |hash| issued through a tunnel of |l| to |host|? */
static int
resumable_known(const struct listener *l, const char *host,
    const unsigned char hash[TLS_HASH])
{
	unsigned char key[SHA256_BYTES];
	size_t i;

	if (l->resumables == NULL)
		return 0;
	resumable_key(host, hash, key);
	for (i = 0; i < RESUMABLE_MAX; i++)
		if (memcmp(l->resumables[i].key, key, sizeof(key)) == 0)
			return 1;
	return 0;
}

/* Remembers the ticket |hash| issued through a tunnel of |l| to |host|. */
static void
resumable_learn(struct listener *l, const char *host,
    const unsigned char hash[TLS_HASH])
{
	if (l->resumables == NULL && (l->resumables = calloc(RESUMABLE_MAX,
	    sizeof(*l->resumables))) == NULL)
		return;	/* it will not resume: the client is refused */
	resumable_key(host, hash,
	    l->resumables[l->resumable_next++ % RESUMABLE_MAX].key);
}

/*
 * What the ClientHello in c->up.data of the tunnel |c| offers to resume
 * (tls_client_hello_resume()): a ticket must be one the proxy saw issued
 * for the CONNECT host; the server's handshake is then read for the
 * tickets it issues (server_walk()).  Returns 0, or -1 when |c| was
 * closed.
 */
static int
hello_resume(struct proxy *p, struct conn *c)
{
	const unsigned char *d = (const unsigned char *)c->up.data;

	if (tls_client_hello_resume(d, c->up.len, &c->resume) != 0) {
		hello_refuse(p, c, "error", END_SNI, "malformed TLS "
		    "ClientHello");
		return -1;
	}
	if (c->resume.ticket &&
	    !resumable_known(c->l, c->host, c->resume.ticket_hash)) {
		hello_refuse(p, c, "deny", END_SNI, "TLS session ticket not "
		    "issued for %s through the proxy", c->host);
		return -1;
	}
	if ((c->swalk = calloc(1, sizeof(*c->swalk))) == NULL) {
		hello_refuse(p, c, "error", END_SNI, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Reads |len| bytes the server of the tunnel |c| sent, from its first,
 * until its handshake is encrypted (tls_server_walk()): a TLS 1.2 ticket
 * it issues is learned for the CONNECT host.
 */
static void
server_walk(struct conn *c, const char *buf, size_t len)
{
	struct tls_server_walk *w = c->swalk;

	tls_server_walk(w, (const unsigned char *)buf, len);
	if (w->ticket) {
		w->ticket = 0;
		resumable_learn(c->l, c->host, w->ticket_hash);
	}
	if (w->done) {
		free(c->swalk);
		c->swalk = NULL;
	}
}

static void hold_behind(struct proxy *, struct conn *, size_t, int);

/*
 * The first bytes of the tunnel |c| to a name (in c->up.data) are
 * neither TLS nor HTTP, and pass.  A text protocol may still turn to
 * TLS (STARTTLS), and its ClientHello names the server again: from here
 * the client's bytes are read for a request for TLS
 * (tls_asks_for_tls()), which goes alone; what follows it must be a
 * ClientHello, judged as a tunnel's start (hello_judge()).
 */
static void
other_bytes(struct proxy *p, struct conn *c)
{
	size_t end;

	c->hello_check = 0;
	c->asking = 1;
	memset(&c->ask, 0, sizeof(c->ask));
	end = tls_asks_for_tls(&c->ask, (const unsigned char *)c->up.data,
	    c->up.len);
	if (end > 0) {
		c->asking = 0;
		c->tls_due = 1;
		hold_behind(p, c, end, 0);
	}
}

/*
 * The first bytes of the tunnel |c| to a name, when they are no TLS
 * record.  An HTTP/1.x request there names its site in Host, by which a
 * front end shared by many sites (a CDN) routes, and a tunnel would
 * carry any number of them: it is held to the rules of plain-HTTP
 * forwarding instead (conn_request()).  Its head must parse, its target
 * be origin-form and its Host (if any) the CONNECT host (one without,
 * HTTP/1.0, is given it); it goes on with "Connection: close" and
 * exactly its body, and nothing after it does.
 * Other bytes pass as they are.  The contract of hello_judge().
 */
static void
tunnel_request(struct proxy *p, struct conn *c, int final)
{
	static struct http_head h;
	struct rules_target t;
	const char *d = c->up.data, *nl;
	char why[RULES_REASON_MAX], *out;
	size_t lead, len;
	int rc;

	if ((rc = http_proxy_header(d, c->up.len)) != 0) {
		if (rc > 0 || final)
			hello_refuse(p, c, "deny", END_HTTP, "PROXY protocol "
			    "header in a tunnel");
		return;
	}
	rc = http_starts_request(d, c->up.len, p->lim.max_line, &lead);
	if (rc == 0 || (rc < 0 && final)) {
		other_bytes(p, c);
		return;
	}
	if (rc < 0)
		return;
	if (lead > 0) {
		hello_refuse(p, c, "error", END_HTTP, "bytes before an HTTP "
		    "request in a tunnel");
		return;
	}
	if ((rc = http_head_parse(d, c->up.len, p->lim.max_line,
	    p->lim.max_header, &h)) == 0) {
		if (final)
			hello_refuse(p, c, "error", END_HTTP, "HTTP request "
			    "in a tunnel cut short");
		return;
	}
	if (rc < 0) {
		hello_refuse(p, c, "error", END_HTTP, "%s", h.why);
		return;
	}
	if (h.is_connect || !(d[h.target.off] == '/' ||
	    (h.target.len == 1 && d[h.target.off] == '*'))) {
		hello_refuse(p, c, "error", END_HTTP, "HTTP request in a "
		    "tunnel with a target other than a path");
		return;
	}
	if (h.has_host && (rules_parse_authority(d + h.host.off, h.host.len,
	    c->port, &t, why, sizeof(why)) != 0 ||
	    strcmp(t.host, c->host) != 0)) {
		snprintf(why, sizeof(why), "%.*s", (int)(h.host.len < 128 ?
		    h.host.len : 128), d + h.host.off);
		sanitize(why);
		hello_refuse(p, c, "deny", END_HTTP, "HTTP Host %s in the "
		    "tunnel is not the CONNECT host %s", why, c->host);
		return;
	}
	if ((out = malloc(RELAY_BUF)) == NULL) {
		hello_refuse(p, c, "error", END_HTTP, "out of memory");
		return;
	}
	/* The request line as it came (it parsed), then the rest framed.
	 * An HTTP/1.0 request without Host would get the front end's
	 * default site: it names the CONNECT host. */
	nl = memchr(d, '\n', h.len);
	len = (size_t)(nl - d) + 1;
	memcpy(out, d, len);
	if (!h.has_host)
		len += (size_t)snprintf(out + len, RELAY_BUF - len,
		    "Host: %s\r\n", c->host);
	if ((len = request_frame(c, d, &h, c->up.len - h.len, 1, out, len,
	    RELAY_BUF)) == 0) {
		free(out);
		hello_refuse(p, c, "error", END_HTTP, "request head larger "
		    "than the relay buffer");
		return;
	}
	free(c->up.data);
	c->up.data = out;
	c->up.off = 0;
	c->up.len = len;
	c->hello_check = 0;
}

/*
 * The first |len| bytes of the tunnel |c| may go: what the client sent
 * behind them (with the CONNECT head, or in the same read) is moved to
 * c->held, and what it sends next stays in its socket.  After a
 * ClientHello (|hello|) they wait until server_first() has seen whether
 * the server asks for a second one; after a message asking for TLS
 * (tls_upgrade_prelude()), until it went (prelude_sent()).
 */
static void
hold_behind(struct proxy *p, struct conn *c, size_t len, int hello)
{
	if (c->up.len > len) {
		if ((c->held = malloc(c->up.len - len)) == NULL) {
			hello_refuse(p, c, "error", END_SNI, "out of memory");
			return;
		}
		c->heldlen = c->up.len - len;
		memcpy(c->held, c->up.data + len, c->heldlen);
		c->up.len = len;
	}
	c->hello_check = 0;
	if (hello)
		c->server_wait = 1;
	else
		c->prelude = 1;
}

/*
 * Judges what the client of the tunnel |c| has sent so far (in
 * c->up.data; |final|: it can send no more).  Bytes that do not start a
 * TLS record are tunnel_request()'s; a TLS record goes through only when
 * it is a ClientHello whose server name is the CONNECT host.  A front
 * end shared by many names (a CDN) routes by that name: any other would
 * reach a host no rule names from the checked address.  Clears
 * c->hello_check when the bytes may go, closes |c| when they may not,
 * else waits for more.  After a HelloRetryRequest (c->hello_second)
 * the second ClientHello is judged the same way.
 */
static void
hello_judge(struct proxy *p, struct conn *c, int final)
{
	const unsigned char *d = (const unsigned char *)c->up.data;
	char name[TLS_NAME_MAX], why[TLS_WHY_MAX];
	size_t n;
	int rc, pre;

	if (c->up.len == 0 && final) {
		c->hello_check = 0;
		return;
	}
	if (c->tls_due && c->up.len > 0 && !tls_is_record(d, c->up.len)) {
		hello_refuse(p, c, "deny", END_SNI, "bytes other than a TLS "
		    "record after a request for TLS (STARTTLS)");
		return;
	}
	if (!c->hello_second && (pre = tls_upgrade_prelude(d, c->up.len)) != 0) {
		if (pre > 0)
			hold_behind(p, c, (size_t)pre, 0);
		else if (final)
			c->hello_check = 0;
		return;
	}
	if (c->up.len > 0 && !c->hello_second && !tls_is_record(d, c->up.len)) {
		tunnel_request(p, c, final);
		return;
	}
	rc = c->hello_second ? tls_second_hello_name(d, c->up.len, name, why) :
	    tls_client_hello_name(d, c->up.len, name, why);
	if (rc == 0) {
		if (final)
			hello_refuse(p, c, "error", END_SNI, "TLS ClientHello "
			    "cut short");
		return;
	}
	if (rc < 0) {
		hello_refuse(p, c, "error", END_SNI, "%s", why);
		return;
	}
	if (name[0] == '\0') {
		hello_refuse(p, c, "deny", END_SNI, "TLS ClientHello without "
		    "a server name (CONNECT %s)", c->host);
		return;
	}
	n = strlen(name);
	if (name[n - 1] == '.')
		name[--n] = '\0';
	if (strcasecmp(name, c->host) != 0) {
		sanitize(name);
		hello_refuse(p, c, "deny", END_SNI, "TLS server name %s is not "
		    "the CONNECT host %s", name, c->host);
		return;
	}
	c->hello_check = 0;
	if (c->hello_second) {
		c->hello_second = 0;	/* a server asks once */
		n = tls_second_hello_end(d, c->up.len);
		if (walk_client(c, c->up.data + n, c->up.len - n) != 0)
			conn_close(p, c);
		return;
	}
	c->walking = 1;
	c->tls_due = 0;
	memset(&c->walk, 0, sizeof(c->walk));
	if (hello_resume(p, c) != 0)
		return;
	hold_behind(p, c, 5 + ((size_t)d[3] << 8 | d[4]), 1);
}

/*
 * Reads more of the first bytes of the tunnel |c| into c->up.data (at
 * most one TLS record or request head, never past the byte cap) and
 * judges them.
 */
static void
hello_read(struct proxy *p, struct conn *c)
{
	size_t cap = TLS_RECORD_MAX > p->lim.max_header ? TLS_RECORD_MAX :
	    p->lim.max_header;
	size_t room = cap > c->up.len ? cap - c->up.len : 0;
	ssize_t n;

	if (p->lim.max_bytes != 0 && room > p->lim.max_bytes - c->bytes_up)
		room = (size_t)(p->lim.max_bytes - c->bytes_up);
	if (room == 0) {	/* a whole record would have been judged */
		hello_judge(p, c, 1);
		return;
	}
	n = recv(c->cfd, c->up.data + c->up.len, room, 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == -1) {
		c->end = "client reset";
		conn_close(p, c);
		return;
	}
	if (n == 0)
		c->c_eof = 1;
	c->up.len += (size_t)n;
	c->bytes_up += (uint64_t)n;
	c->last_ms = now_monotonic_ms();
	hello_judge(p, c, n == 0);
}

/* --- I/O ------------------------------------------------------------------------ */

static void
conn_read_head(struct proxy *p, struct conn *c)
{
	static struct http_head h;	/* large; the loop is single-threaded */
	ssize_t n;
	int rc;

	if (c->head == NULL && (c->head = malloc(p->lim.max_header)) == NULL) {
		c->end = "out of memory";
		conn_close(p, c);
		return;
	}
	n = recv(c->cfd, c->head + c->headlen, p->lim.max_header - c->headlen,
	    0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->end = n == 0 ? "client closed before request" :
		    "client error";
		conn_close(p, c);
		return;
	}
	c->headlen += (size_t)n;
	c->last_ms = now_monotonic_ms();
	if (c->socks || (unsigned char)c->head[0] == 5) {
		socks_head(p, c);
		return;
	}
	rc = http_head_parse(c->head, c->headlen, p->lim.max_line,
	    p->lim.max_header, &h);
	if (h.method[0] != '\0') {
		snprintf(c->method, sizeof(c->method), "%s", h.method);
		sanitize(c->method);
	}
	if (rc < 0)
		conn_refuse(p, c, h.status, "error", "%s", h.why);
	else if (rc == 1)
		conn_request(p, c, &h);
}

/*
 * The client of the tunnel |c| sent the bytes in |b| (all it holds)
 * after a start that was neither TLS nor HTTP: when they end a request
 * for TLS, it goes alone and what follows waits in c->held, to be
 * judged as a tunnel's start once it went (prelude_sent()).  Returns
 * 0, or -1 (with c->end) when the connection must close.
 */
static int
asks_for_tls(struct conn *c, struct relaybuf *b)
{
	size_t end = tls_asks_for_tls(&c->ask,
	    (const unsigned char *)b->data + b->off, b->len);

	if (end == 0)
		return 0;
	c->asking = 0;
	c->tls_due = 1;
	c->prelude = 1;
	if (end == b->len)
		return 0;
	if ((c->held = malloc(b->len - end)) == NULL) {
		c->end = "out of memory";
		return -1;
	}
	c->heldlen = b->len - end;
	memcpy(c->held, b->data + b->off + end, c->heldlen);
	b->len = end;
	return 0;
}

/*
 * Moves bytes from |from| into |b|, counting them in *count against the
 * byte cap: at most the cap is read, and the connection counts as capped
 * only if the peer has more to send after that.  Called only when |b|
 * is empty.  Returns 0, or -1 if the connection must close.
 */
static int
relay_read(struct proxy *p, struct conn *c, int from, struct relaybuf *b,
    uint64_t *count, int *eof)
{
	size_t want;
	ssize_t n;
	char peek;
	int spliced;

	if (PENDING(b) > 0)
		return 0;
	b->off = 0;
	want = b->pipe[0] >= 0 ? b->pcap : RELAY_BUF;
	if (p->lim.max_bytes != 0) {
		if (*count >= p->lim.max_bytes) {
			n = recv(from, &peek, 1, MSG_PEEK);
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				return 0;
			if (n == 1) {
				c->capped = 1;
				c->end = "byte cap";
			} else if (n == 0)
				*eof = 1;
			else {
				c->end = from == c->cfd ? "client reset" :
				    "server reset";
				return -1;
			}
			return 0;
		}
		if (want > p->lim.max_bytes - *count)
			want = (size_t)(p->lim.max_bytes - *count);
	}
	/* A plain-HTTP request body: exactly the declared length. */
	if (from == c->cfd && c->framed && want > c->up_left)
		want = (size_t)c->up_left;
	/* The server's first bytes are read, by server_first(); so are
	 * the client's records after its ClientHello, by walk_client(). */
	spliced = b->pipe[0] >= 0 &&
	    !(from == c->sfd && (c->server_wait || c->swalk != NULL)) &&
	    !(from == c->cfd && (c->walking || c->asking));
	if (spliced)
		n = splice(from, NULL, b->pipe[1], NULL, want,
		    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	else
		n = recv(from, b->data, want < RELAY_BUF ? want : RELAY_BUF,
		    0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n == -1) {
		c->end = from == c->cfd ? "client reset" : "server reset";
		return -1;
	}
	if (from == c->sfd && c->server_wait &&
	    server_first(c, b->data, n > 0 ? (size_t)n : 0) != 0)
		return -1;
	if (n == 0) {
		*eof = 1;
		return 0;
	}
	if (from == c->cfd && walk_client(c, b->data, (size_t)n) != 0)
		return -1;
	if (from == c->sfd && c->swalk != NULL)
		server_walk(c, b->data, (size_t)n);
	*count += (uint64_t)n;
	if (from == c->cfd && c->framed) {
		c->up_left -= (uint64_t)n;
		c->up_done = c->up_left == 0;
	}
	if (spliced)
		b->plen += (size_t)n;
	else
		b->len += (size_t)n;
	c->last_ms = now_monotonic_ms();
	if (from == c->cfd && c->asking)
		return asks_for_tls(c, b);
	return 0;
}

/*
 * Takes |n| more of the first bytes the server of the tunnel |c| sent
 * (0: it closed) while the client's bytes behind its ClientHello wait.
 * A HelloRetryRequest, or a first message that cannot be told from one,
 * makes the held bytes the ones to judge (c->hello_second, judged by
 * conn_io() at once): the client's next ClientHello names the server
 * again.  Any other answer lets them go as they are.  Returns -1 (with
 * c->end) when they cannot be put back in order.
 */
static int
server_first(struct conn *c, const char *data, size_t n)
{
	size_t take = TLS_SERVER_FIRST - c->sfirstlen;
	int rc;

	if (take > n)
		take = n;
	memcpy(c->sfirst + c->sfirstlen, data, take);
	c->sfirstlen += take;
	rc = tls_server_retries(c->sfirst, c->sfirstlen);
	if (rc == -1 && n > 0)
		return 0;
	c->server_wait = 0;
	if (rc == 1) {
		/* An honest server has read the whole ClientHello. */
		if (PENDING(&c->up) > 0) {
			c->end = "server answered before the ClientHello "
			    "was sent";
			return -1;
		}
		c->hello_second = 1;
		c->hello_check = 1;
		c->judge_due = 1;
		c->up.off = 0;
	}
	if (c->heldlen == 0)
		return 0;
	/* Let go as they are: walked (a second ClientHello is judged). */
	if (rc != 1 && walk_client(c, c->held, c->heldlen) != 0)
		return -1;
	/* Behind what is still to be sent; the buffer holds RELAY_BUF, a
	 * record and a head at most half of that each. */
	memmove(c->up.data, c->up.data + c->up.off, c->up.len);
	c->up.off = 0;
	memcpy(c->up.data + c->up.len, c->held, c->heldlen);
	c->up.len += c->heldlen;
	free(c->held);
	c->held = NULL;
	c->heldlen = 0;
	return 0;
}

/*
 * The message asking for TLS at the start of the tunnel |c| went alone:
 * what follows it is judged as the tunnel's start (a ClientHello naming
 * the CONNECT host, a request for it, or other bytes).
 */
static void
prelude_sent(struct proxy *p, struct conn *c)
{
	c->prelude = 0;
	c->hello_check = 1;
	c->up.off = 0;
	if (c->heldlen > 0) {
		memcpy(c->up.data, c->held, c->heldlen);
		c->up.len = c->heldlen;
		free(c->held);
		c->held = NULL;
		c->heldlen = 0;
		hello_judge(p, c, c->c_eof);
	}
}

static int
relay_write(struct conn *c, int to, struct relaybuf *b)
{
	ssize_t n;

	if (b->len > 0)
		n = send(to, b->data + b->off, b->len, MSG_NOSIGNAL);
	else if (b->plen > 0)
		n = splice(b->pipe[0], NULL, to, NULL, b->plen,
		    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	else
		return 0;
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n == -1) {
		c->end = to == c->cfd ? "client reset" : "server reset";
		return -1;
	}
	if (b->len > 0) {
		b->off += (size_t)n;
		b->len -= (size_t)n;
	} else
		b->plen -= (size_t)n;
	c->last_ms = now_monotonic_ms();
	return 0;
}

/*
 * Propagates half-closes; returns 1 once both directions are done, 2
 * when a plain-HTTP exchange is over (the request went, the response
 * came back whole) and the client side only needs draining.
 */
static int
relay_settle(struct conn *c)
{
	if (c->capped)
		return PENDING(&c->up) == 0 && PENDING(&c->down) == 0;
	if (c->framed && c->up_done && PENDING(&c->up) == 0 && c->s_eof &&
	    PENDING(&c->down) == 0)
		return 2;
	if (c->c_eof && PENDING(&c->up) == 0 && !c->s_shut) {
		shutdown(c->sfd, SHUT_WR);
		c->s_shut = 1;
	}
	if (c->s_eof && PENDING(&c->down) == 0 && !c->c_shut) {
		shutdown(c->cfd, SHUT_WR);
		c->c_shut = 1;
	}
	return c->s_shut && c->c_shut;
}

static void
conn_io(struct proxy *p, struct conn *c, int kind, short revents)
{
	char junk[4096];
	ssize_t n;

	switch (c->state) {
	case ST_HEAD:
		if (revents & (POLLIN | POLLHUP | POLLERR))
			conn_read_head(p, c);
		return;
	case ST_CONNECTING:
		if (kind == 2 && (revents & (POLLOUT | POLLERR | POLLHUP)))
			conn_connected(p, c);
		return;
	case ST_RESOLVING:
		return;
	case ST_REPLY:
		if (relay_write(c, c->cfd, &c->down) != 0) {
			conn_close(p, c);
			return;
		}
		if (c->down.len == 0) {
			shutdown(c->cfd, SHUT_WR);
			c->state = ST_DRAIN;
			c->deadline_ms = now_monotonic_ms() + DRAIN_MS;
		}
		return;
	case ST_DRAIN:
		n = recv(c->cfd, junk, sizeof(junk), 0);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		c->drained += n > 0 ? (uint64_t)n : 0;
		if (n > 0 && c->framed)
			c->end = "bytes after the request not forwarded";
		if (n <= 0 || c->drained > DRAIN_BYTES)
			conn_close(p, c);
		return;
	case ST_RELAY:
		break;
	}
	if (kind == 1) {
		if ((revents & POLLOUT) && relay_write(c, c->cfd, &c->down))
			goto out;
		if (c->hello_check) {
			if (revents & (POLLIN | POLLHUP | POLLERR))
				hello_read(p, c);
			return;
		}
		if ((revents & (POLLIN | POLLHUP | POLLERR)) && !c->c_eof &&
		    !c->server_wait &&
		    !c->capped && !c->up_done && relay_read(p, c, c->cfd, &c->up,
		    &c->bytes_up, &c->c_eof))
			goto out;
	} else {
		if ((revents & POLLOUT) && relay_write(c, c->sfd, &c->up))
			goto out;
		if (c->prelude && PENDING(&c->up) == 0) {
			prelude_sent(p, c);
			return;
		}
		if ((revents & (POLLIN | POLLHUP | POLLERR)) && !c->s_eof &&
		    !c->capped && relay_read(p, c, c->sfd, &c->down,
		    &c->bytes_down, &c->s_eof))
			goto out;
		if (c->judge_due) {
			/* The server asked for a second ClientHello. */
			c->judge_due = 0;
			if (c->up.len > 0)
				hello_judge(p, c, c->c_eof);
			return;
		}
	}
	switch (relay_settle(c)) {
	case 1:
		conn_close(p, c);
		break;
	case 2:
		/* Nothing more goes upstream: what the client still
		 * sends is read and thrown away until it closes. */
		close(c->sfd);
		c->sfd = -1;
		shutdown(c->cfd, SHUT_WR);
		c->state = ST_DRAIN;
		c->deadline_ms = now_monotonic_ms() + DRAIN_MS;
		break;
	}
	return;
 out:
	conn_close(p, c);
}

/* --- accept and control --------------------------------------------------------- */

/*
 * accept() on |l| failed for want of descriptors (or memory): the
 * connection stays queued and the listener readable, so calling again
 * at once would spin.  No listener is watched for ACCEPT_PAUSE_MS; the
 * first failure of a shortage is logged, the retries are not.
 */
static void
accept_pause(struct proxy *p, struct listener *l)
{
	if (!p->accept_short)
		log_warn("%s: accept on %s (not accepting for %d ms at a "
		    "time until it succeeds)", __func__, l->sandbox,
		    ACCEPT_PAUSE_MS);
	p->accept_short = 1;
	p->accept_resume_ms = now_monotonic_ms() + ACCEPT_PAUSE_MS;
}

static void
listener_accept(struct proxy *p, struct listener *l)
{
	struct conn *c;
	int i, fd;

	for (i = 0; i < ACCEPT_BURST; i++) {
		fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				accept_pause(p, l);
			else if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("%s: accept on %s", __func__,
				    l->sandbox);
			return;
		}
		p->accept_short = 0;
		if (l->nconns >= p->lim.max_conns &&
		    l->nextra >= p->lim.max_conns) {
			close(fd);	/* far over the cap: no reply */
			over_cap_count(l);
			continue;
		}
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			close(fd);
			return;
		}
		c->l = l;
		c->id = ++p->next_id;
		c->cfd = fd;
		c->sfd = -1;
		c->up.pipe[0] = c->up.pipe[1] = -1;
		c->down.pipe[0] = c->down.pipe[1] = -1;
		c->state = ST_HEAD;
		c->start_wall = now_wall_ms();
		c->start_ms = c->last_ms = now_monotonic_ms();
		c->next = p->conns;
		p->conns = c;
		p->nconns++;
		if (l->nconns < p->lim.max_conns) {
			c->counted = 1;
			l->nconns++;
		} else {
			l->nextra++;
			conn_refuse(p, c, 429, "deny", "connection limit "
			    "reached: %d concurrent connections for sandbox %s",
			    p->lim.max_conns, l->sandbox);
		}
	}
}

/* Splits the next "\n"-terminated line off *s; NULL at the end. */
static char *
next_line(char **s)
{
	char *line = *s, *nl;

	if (line == NULL || *line == '\0')
		return NULL;
	if ((nl = strchr(line, '\n')) != NULL) {
		*nl = '\0';
		*s = nl + 1;
	} else
		*s = NULL;
	return line;
}

static void
ctl_reply(struct proxy *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
ctl_reply(struct proxy *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (proxy_send_fd(p->ctl_fd, -1, msg, strlen(msg)) != 0)
		log_warn("%s: control reply", __func__);
}

/*
 * Control messages come from the supervisor (a trusted peer); they are
 * still parsed with bounds: "add ID\nallow PATTERN\nallow-ip CIDR\n..."
 * with the listener attached, or "remove ID\n".
 */
static void
ctl_handle(struct proxy *p)
{
	char *msg, *s, *line, err[RULES_REASON_MAX];
	struct rules *r;
	size_t len;
	int fd, rc;

	if ((msg = malloc(PROXY_CTL_MAX + 1)) == NULL)
		return;
	rc = proxy_recv_fd(p->ctl_fd, &fd, msg, PROXY_CTL_MAX, &len);
	if (rc == AL_ERR_SYSTEM && (errno == EAGAIN || errno == EINTR)) {
		free(msg);
		return;
	}
	if (rc <= 0) {
		if (rc == 0 || rc == AL_ERR_SYSTEM)
			p->ctl_closed = 1;
		else
			ctl_reply(p, "error malformed control message");
		free(msg);
		return;
	}
	msg[len] = '\0';
	s = msg;
	line = next_line(&s);
	if (line != NULL && strncmp(line, "remove ", 7) == 0) {
		if (fd >= 0)
			close(fd);
		rc = proxy_remove_listener(p, line + 7);
		ctl_reply(p, rc == 0 ? "ok" : "error no such sandbox");
	} else if (line != NULL && strncmp(line, "add ", 4) == 0 && fd >= 0) {
		char *id = line + 4;

		if ((r = rules_new()) == NULL) {
			close(fd);
			ctl_reply(p, "error out of memory");
			goto done;
		}
		while ((line = next_line(&s)) != NULL) {
			if (strncmp(line, "allow ", 6) == 0)
				rc = rules_add_host(r, line + 6, err,
				    sizeof(err));
			else if (strncmp(line, "allow-ip ", 9) == 0)
				rc = rules_add_ip(r, line + 9, err,
				    sizeof(err));
			else {
				rc = AL_ERR_FORMAT;
				snprintf(err, sizeof(err), "unknown control "
				    "line");
			}
			if (rc != 0) {
				close(fd);
				rules_free(r);
				ctl_reply(p, "error %s", err);
				goto done;
			}
		}
		rc = proxy_add_listener(p, fd, id, r);
		if (rc == 0)
			ctl_reply(p, "ok");
		else
			ctl_reply(p, "error cannot serve sandbox '%s': %s", id,
			    al_strerror(rc));
	} else {
		if (fd >= 0)
			close(fd);
		ctl_reply(p, "error unknown control message");
	}
 done:
	free(msg);
}

/* --- the loop ------------------------------------------------------------------- */

static int
pfd_add(struct proxy *p, size_t *n, int fd, short events, void *own, int kind)
{
	if (*n == p->pcap) {
		size_t ncap = p->pcap ? p->pcap * 2 : 64;
		void *a, *b, *k;

		if ((a = reallocarray(p->pfds, ncap, sizeof(*p->pfds))) == NULL)
			return -1;
		p->pfds = a;
		if ((b = reallocarray(p->pown, ncap, sizeof(*p->pown))) == NULL)
			return -1;
		p->pown = b;
		if ((k = reallocarray(p->pkind, ncap, sizeof(*p->pkind))) ==
		    NULL)
			return -1;
		p->pkind = k;
		p->pcap = ncap;
	}
	p->pfds[*n].fd = fd;
	p->pfds[*n].events = events;
	p->pfds[*n].revents = 0;
	p->pown[*n] = own;
	p->pkind[*n] = kind;
	(*n)++;
	return 0;
}

/* Fills the poll set; returns its size and the next deadline in *timeout. */
static int
build_pollset(struct proxy *p, size_t *np, int *timeout)
{
	struct listener *l;
	struct conn *c;
	int64_t now = now_monotonic_ms(), dl, soonest = now + 500;
	short ce, se;
	size_t n = 0, i;

	if (p->ctl_fd >= 0 && pfd_add(p, &n, p->ctl_fd, POLLIN, NULL, 3))
		return -1;
	if (now >= p->accept_resume_ms) {
		for (l = p->listeners; l != NULL; l = l->next)
			if (pfd_add(p, &n, l->fd, POLLIN, l, 0))
				return -1;
	} else if (p->accept_resume_ms < soonest)
		soonest = p->accept_resume_ms;
	for (l = p->listeners; l != NULL; l = l->next)
		if (l->over_cap > 0 && l->over_cap_due < soonest)
			soonest = l->over_cap_due;
	for (i = 0; i < p->nres; i++) {
		if (p->res[i].fd < 0)
			continue;
		if (pfd_add(p, &n, p->res[i].fd, POLLIN, &p->res[i], 4))
			return -1;
		if (p->res[i].busy != 0 && p->res[i].deadline_ms < soonest)
			soonest = p->res[i].deadline_ms;
	}
	if (p->keeper_fd >= 0 && pfd_add(p, &n, p->keeper_fd, POLLIN, NULL, 5))
		return -1;
	for (c = p->conns; c != NULL; c = c->next) {
		ce = se = 0;
		switch (c->state) {
		case ST_HEAD:
		case ST_DRAIN:
			ce = POLLIN;
			break;
		case ST_REPLY:
			ce = POLLOUT;
			break;
		case ST_CONNECTING:
			se = POLLOUT;
			break;
		case ST_RESOLVING:
			break;
		case ST_RELAY:
			if (PENDING(&c->down) > 0)
				ce |= POLLOUT;
			else if (!c->s_eof && !c->capped)
				se |= POLLIN;
			if (PENDING(&c->up) > 0 && !c->hello_check)
				se |= POLLOUT;
			else if (!c->c_eof && !c->capped && !c->up_done &&
			    !c->server_wait)
				ce |= POLLIN;
			break;
		}
		if (ce && pfd_add(p, &n, c->cfd, ce, c, 1))
			return -1;
		if (se && pfd_add(p, &n, c->sfd, se, c, 2))
			return -1;
		if (c->state == ST_CONNECTING || c->state == ST_DRAIN ||
		    c->state == ST_RESOLVING)
			dl = c->deadline_ms;
		else
			dl = c->last_ms + p->lim.idle_ms;
		if (dl < soonest)
			soonest = dl;
	}
	*np = n;
	*timeout = soonest <= now ? 0 : (int)(soonest - now);
	return 0;
}

static void
expire(struct proxy *p)
{
	struct listener *l;
	struct conn *c, *next;
	int64_t now = now_monotonic_ms();

	expire_lookups(p, now);
	for (l = p->listeners; l != NULL; l = l->next)
		if (l->over_cap > 0 && now >= l->over_cap_due)
			over_cap_event(p, l);
	for (c = p->conns; c != NULL; c = next) {
		next = c->next;
		switch (c->state) {
		case ST_CONNECTING:
			if (now >= c->deadline_ms) {
				c->connect_errno = ETIMEDOUT;
				close(c->sfd);
				c->sfd = -1;
				c->next_addr++;
				if (c->next_addr < c->naddrs)
					conn_connect_next(p, c);
				else
					conn_refuse(p, c, 504, "error",
					    "connect to %s port %u timed out",
					    c->address, c->port);
			}
			break;
		case ST_DRAIN:
			if (now >= c->deadline_ms)
				conn_close(p, c);
			break;
		case ST_RESOLVING:
			if (now >= c->deadline_ms)
				conn_refuse(p, c, 504, "error", "resolving %s "
				    "timed out", c->host);
			break;
		case ST_HEAD:
			if (now >= c->last_ms + p->lim.idle_ms) {
				c->end = "idle timeout";
				conn_refuse(p, c, 400, "error", "request head "
				    "not received within %d ms",
				    p->lim.idle_ms);
			}
			break;
		default:
			if (now >= c->last_ms + p->lim.idle_ms) {
				c->end = "idle timeout";
				conn_close(p, c);
			}
			break;
		}
	}
}

/* Is |c| still on the list (an earlier event in this round may have closed it)? */
static int
conn_alive(struct proxy *p, struct conn *c)
{
	struct conn *x;

	for (x = p->conns; x != NULL; x = x->next)
		if (x == c)
			return 1;
	return 0;
}

int
proxy_run(struct proxy *p, volatile sig_atomic_t *stop)
{
	struct listener *l;
	size_t n, i;
	int timeout, rc;

	while (!*stop && !p->ctl_closed) {
		if (build_pollset(p, &n, &timeout) != 0)
			return AL_ERR_ALLOC;
		rc = poll(p->pfds, (nfds_t)n, timeout);
		if (rc == -1) {
			if (errno == EINTR)
				continue;
			return AL_ERR_SYSTEM;
		}
		for (i = 0; i < n && rc > 0; i++) {
			short re = p->pfds[i].revents;

			if (re == 0)
				continue;
			switch (p->pkind[i]) {
			case 3:
				ctl_handle(p);
				break;
			case 4:
				if (((struct resolver_slot *)p->pown[i])->fd >= 0)
					resolver_input(p, p->pown[i]);
				break;
			case 5:
				if (p->keeper_fd >= 0)
					keeper_input(p);
				break;
			case 0:
				/* The listener may have been removed. */
				for (l = p->listeners; l != NULL; l = l->next)
					if (l == p->pown[i])
						break;
				if (l != NULL)
					listener_accept(p, l);
				break;
			default:
				if (conn_alive(p, p->pown[i]))
					conn_io(p, p->pown[i], p->pkind[i], re);
				break;
			}
		}
		expire(p);
	}
	return 0;
}
