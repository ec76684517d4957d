/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_ship: journald and syslog copies of audit records (see
 * audit_ship.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "broker/audit_ship.h"
#include "common/errors.h"
#include "common/log.h"
#include "common/strlist.h"
#include "common/vis.h"

#define SHIP_MAX 8
#define JOURNALD_SOCKET "/run/systemd/journal/socket"
#define SYSLOG_SOCKET "/dev/log"
#define SD_ID "airlock@32473" /* RFC 5612 example PEN */

enum ship_kind { SHIP_JOURNALD, SHIP_SYSLOG };

struct ship_out {
	enum ship_kind kind;
	struct sockaddr_un addr;
	int fd;
	int facility;
	uint64_t dropped;
	int warned;
};

struct audit_ship {
	struct ship_out out[SHIP_MAX];
	size_t n;
	char host[256];
	int sync_exec_end; /* "sync exec-end": audit_ship_sync_exec_end() */
};

static const struct {
	const char *name;
	int code;
} facilities[] = { { "user", 1 }, { "daemon", 3 }, { "auth", 4 },
	{ "authpriv", 10 }, { "local0", 16 }, { "local1", 17 },
	{ "local2", 18 }, { "local3", 19 }, { "local4", 20 }, { "local5", 21 },
	{ "local6", 22 }, { "local7", 23 }, { NULL, 0 } };

/* A datagram socket connected to the output; 0 or -1 (errno set). */
static int
ship_connect(struct ship_out *o)
{
	int saved;

	o->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (o->fd == -1)
		return -1;
	if (connect(o->fd, (struct sockaddr *)&o->addr, sizeof(o->addr)) ==
	    -1) {
		saved = errno;
		close(o->fd);
		o->fd = -1;
		errno = saved;
		return -1;
	}
	return 0;
}

static int
parse_line(struct audit_ship *s, char *line, char *why, size_t whylen)
{
	char *tok[4], *save = NULL, *p;
	struct ship_out *o;
	size_t n = 0, i;

	/* A word that begins with '#' begins a comment, to the line's end. */
	for (p = strtok_r(line, " \t\r\n", &save);
	     p != NULL && p[0] != '#' && n < 4;
	     p = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = p;
	if (p != NULL && p[0] == '#')
		p = NULL;
	if (n == 0)
		return 0;
	if (p != NULL || n == 4) {
		snprintf(why, whylen, "too many words");
		return -1;
	}
	if (strcmp(tok[0], "sync") == 0) {
		if (n != 2 || strcmp(tok[1], "exec-end") != 0) {
			snprintf(why, whylen, "sync takes one word: exec-end");
			return -1;
		}
		s->sync_exec_end = 1;
		return 0;
	}
	if (s->n == SHIP_MAX) {
		snprintf(why, whylen, "more than %d outputs", SHIP_MAX);
		return -1;
	}
	o = &s->out[s->n];
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->addr.sun_family = AF_UNIX;
	if (strcmp(tok[0], "journald") == 0) {
		if (n != 1) {
			snprintf(why, whylen, "journald takes no arguments");
			return -1;
		}
		o->kind = SHIP_JOURNALD;
		snprintf(o->addr.sun_path, sizeof(o->addr.sun_path), "%s",
		    JOURNALD_SOCKET);
	} else if (strcmp(tok[0], "syslog") == 0) {
		o->kind = SHIP_SYSLOG;
		o->facility = 16;
		if (n > 1 &&
		    (tok[1][0] != '/' ||
			strlen(tok[1]) >= sizeof(o->addr.sun_path))) {
			snprintf(why, whylen,
			    "syslog: the socket must be an "
			    "absolute path shorter than %zu bytes",
			    sizeof(o->addr.sun_path));
			return -1;
		}
		snprintf(o->addr.sun_path, sizeof(o->addr.sun_path), "%s",
		    n > 1 ? tok[1] : SYSLOG_SOCKET);
		if (n > 2) {
			for (i = 0; facilities[i].name != NULL; i++)
				if (strcmp(facilities[i].name, tok[2]) == 0)
					break;
			if (facilities[i].name == NULL) {
				snprintf(why, whylen,
				    "syslog: unknown facility "
				    "\"%.32s\" (user, daemon, auth, authpriv, "
				    "local0..local7)",
				    tok[2]);
				return -1;
			}
			o->facility = facilities[i].code;
		}
	} else {
		snprintf(why, whylen,
		    "unknown output \"%.32s\" (journald, "
		    "syslog)",
		    tok[0]);
		return -1;
	}
	s->n++;
	return 0;
}

int
audit_ship_load(
    const char *path, struct audit_ship **out, char *err, size_t errlen)
{
	struct audit_ship *s;
	char *line = NULL, why[160];
	size_t cap = 0, lineno = 0, i;
	FILE *fp;
	int rc = 0;

	*out = NULL;
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		fclose(fp);
		return AL_ERR_ALLOC;
	}
	while (rc == 0 && getline(&line, &cap, fp) > 0) {
		lineno++;
		if (parse_line(s, line, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
			rc = AL_ERR_FORMAT;
		}
	}
	free(line);
	fclose(fp);
	if (rc != 0) {
		free(s);
		return rc;
	}
	if (gethostname(s->host, sizeof(s->host)) == -1 || s->host[0] == '\0')
		snprintf(s->host, sizeof(s->host), "-");
	s->host[sizeof(s->host) - 1] = '\0';
	/* Connected now, before the broker confines itself. */
	for (i = 0; i < s->n; i++)
		ship_connect(&s->out[i]);
	*out = s;
	return 0;
}

/* The string member |name| of the record's fields, or NULL. */
static const char *
field(json_t *rec, const char *name)
{
	return json_string_value(
	    json_object_get(json_object_get(rec, "fields"), name));
}

/*
 * A field's value for the copies' metadata, escaped (common/vis.h) and
 * cut to |max| bytes, "..." marking a cut; NULL for NULL (or out of
 * memory).  The value may be the agent's: a refused call's "tool" is
 * whatever name it sent, and the copies are read by people (journalctl,
 * a syslog file), where a newline, ESC or a bidi override would drive
 * or disguise the line.  Caller frees.
 */
static char *
meta_value(const char *v, size_t max)
{
	size_t len, used;
	char *e, *out;

	if (v == NULL)
		return NULL;
	len = strlen(v);
	if ((e = vis_dup_fit(v, len, 0, max, &used)) == NULL || used == len)
		return e;
	if ((out = malloc(strlen(e) + 4)) != NULL)
		snprintf(out, strlen(e) + 4, "%s...", e);
	free(e);
	return out;
}

/* A name as a manifest spells one: [A-Za-z0-9_-], 1 to 64 bytes. */
static int
is_name(const char *s)
{
	size_t n = strspn(s,
	    "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	return n > 0 && n <= 64 && s[n] == '\0';
}

/*
 * MESSAGE: "airlock EVENT session ID seq N[ decision D][ tool T]".  The
 * decision comes before the tool, and a tool that is not a plain name
 * (a refused call's: the agent's choice) is quoted, escaped and cut: a
 * call to "read_file decision allow" and 600 spaces read as an allowed
 * call, the real "decision invalid" cut off the end of the message.
 */
static void
journald_message(char *msg, size_t msglen, const char *ev, const char *sess,
    const char *seq, const char *tool, const char *dec)
{
	char *et = meta_value(tool, 64), *ed = meta_value(dec, 32);
	char qt[160];
	size_t i, o = 0;

	qt[0] = '\0';
	if (et != NULL && is_name(et))
		snprintf(qt, sizeof(qt), "%s", et);
	else if (et != NULL) {
		/* vis escaped every backslash: a \" cannot be forged. */
		qt[o++] = '"';
		for (i = 0; et[i] != '\0' && o + 3 < sizeof(qt); i++) {
			if (et[i] == '"')
				qt[o++] = '\\';
			qt[o++] = et[i];
		}
		qt[o++] = '"';
		qt[o] = '\0';
	} else if (tool != NULL)
		snprintf(qt, sizeof(qt), "?");
	snprintf(msg, msglen, "airlock %s session %s seq %s%s%s%s%s", ev, sess,
	    seq, dec != NULL ? " decision " : "",
	    dec != NULL ? (ed != NULL ? ed : "?") : "",
	    tool != NULL ? " tool " : "", qt);
	free(et);
	free(ed);
}

static const char *const refusal_events[] = { "approval_denied",
	"approval_expired", "approval_refused_peer", "approval_voided",
	"change_refused", "connection_refused", "sandbox_denial", "budget_stop",
	"secret_refused", "escalation_refused", "approval_token_refused",
	"cow_commit_refused", "run_refused", "approval_repeat_refused",
	"approval_rate_refused", NULL };
static const char *const refusal_decisions[] = { "deny", "invalid", NULL };
/*
 * The errorClass of a call the broker refused to run, or whose effect or
 * output it withheld, for what the call asked: the manifest, a human (or
 * nobody in time), a budget or limit of the session, or a check of the
 * agent's request (its path, arguments, key, secret, pinned code).  Such
 * a call's decision record may say "allow".  Not here, failures: the call
 * ran and failed, or the workspace or machine could not do it (internal,
 * write_failed, sandbox_setup, timeout, resource_limit, cancelled,
 * not_found, too_large, conflict, audit_unavailable, workspace_*, ...).
 * idempotency_conflict and busy were left out: an agent replaying keys
 * with other arguments, or flooding calls past maxParallelProcesses, left
 * no trace in --decision deny.
 */
static const char *const refusal_classes[] = { "path_refused", "denied",
	"secret_unavailable", "escalation_refused", "pinned_code_changed",
	"output_withheld", "budget_exhausted", "idempotency_conflict", "busy",
	"invalid_arguments", "approval_required", "approval_denied",
	"approval_expired", "approval_rate_limited", "change_refused", NULL };

int
audit_is_refusal(json_t *rec)
{
	return str_in_list(json_string_value(json_object_get(rec, "event")),
		   refusal_events) ||
	    str_in_list(field(rec, "decision"), refusal_decisions) ||
	    str_in_list(field(rec, "errorClass"), refusal_classes);
}

/*
 * 4 (warning) for a refusal (audit_is_refusal(): what `airlock audit
 * --decision deny` lists) or a decision other than allow (sent to a
 * human), else 6 (info).  Before, change_refused, secret_refused,
 * escalation_refused and a call refused as it ran went out at 6, and a
 * watch on warnings missed them.
 */
static int
severity(json_t *rec)
{
	const char *d = field(rec, "decision");

	if (audit_is_refusal(rec) || (d != NULL && strcmp(d, "allow") != 0))
		return 4;
	return 6;
}

static void
dropped(struct ship_out *o, const char *why)
{
	o->dropped++;
	if (!o->warned) {
		o->warned = 1;
		log_warnx("audit: a copy for %s (%s) was not sent: %s; the "
			  "audit file keeps every record",
		    o->kind == SHIP_JOURNALD ? "journald" : "syslog",
		    o->addr.sun_path, why);
	}
}

static int
send_iov(struct ship_out *o, struct iovec *iov, size_t n)
{
	struct msghdr mh;
	int attempt, saved;

	for (attempt = 0; attempt < 2; attempt++) {
		if (o->fd == -1 && ship_connect(o) != 0)
			return -1;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = n;
		if (sendmsg(o->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != -1)
			return 0;
		if (errno == EMSGSIZE || errno == EAGAIN || errno == ENOBUFS)
			return -1;
		/* The receiver went away (restarted): connect once more. */
		saved = errno;
		close(o->fd);
		o->fd = -1;
		errno = saved;
	}
	return -1;
}

/* journald's native protocol: NAME=value\n, or NAME\n<le64 len>value\n. */
static int
jfield(char **buf, size_t *len, size_t *cap, const char *name, const char *val,
    size_t vlen)
{
	size_t nl = strlen(name), need = nl + vlen + 10;
	uint64_t le = vlen;
	char *nb;
	int i;

	if (*len + need > *cap) {
		size_t nc = (*len + need) * 2;

		if ((nb = realloc(*buf, nc)) == NULL)
			return -1;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, name, nl);
	*len += nl;
	if (memchr(val, '\n', vlen) == NULL) {
		(*buf)[(*len)++] = '=';
	} else {
		(*buf)[(*len)++] = '\n';
		for (i = 0; i < 8; i++)
			(*buf)[(*len)++] = (char)((le >> (8 * i)) & 0xff);
	}
	memcpy(*buf + *len, val, vlen);
	*len += vlen;
	(*buf)[(*len)++] = '\n';
	return 0;
}

static void
ship_journald(struct ship_out *o, const char *line, size_t len, json_t *rec,
    int with_record)
{
	const char *ev = json_string_value(json_object_get(rec, "event"));
	const char *sess = json_string_value(json_object_get(rec, "session"));
	const char *rtool = field(rec, "tool"), *rdec = field(rec, "decision");
	char msg[512], seq[32], pri[4];
	char *buf = NULL, *tool, *dec;
	size_t blen = 0, cap = 0;
	struct iovec iov;
	int bad = 0;

	snprintf(seq, sizeof(seq), "%lld",
	    (long long)json_integer_value(json_object_get(rec, "seq")));
	snprintf(pri, sizeof(pri), "%d", severity(rec));
	journald_message(msg, sizeof(msg), ev, sess, seq, rtool, rdec);
	/* AIRLOCK_TOOL and AIRLOCK_DECISION escaped too (a manifest's
	 * names are unchanged); AIRLOCK_RECORD is the line byte for byte. */
	tool = rtool != NULL ? vis_str(rtool, 0) : NULL;
	dec = rdec != NULL ? vis_str(rdec, 0) : NULL;
	if ((rtool != NULL && tool == NULL) || (rdec != NULL && dec == NULL))
		bad = 1;
	bad |= jfield(&buf, &blen, &cap, "MESSAGE", msg, strlen(msg));
	bad |= jfield(&buf, &blen, &cap, "PRIORITY", pri, strlen(pri));
	bad |= jfield(&buf, &blen, &cap, "SYSLOG_IDENTIFIER", "airlock", 7);
	bad |= jfield(&buf, &blen, &cap, "AIRLOCK_SESSION", sess, strlen(sess));
	bad |= jfield(&buf, &blen, &cap, "AIRLOCK_EVENT", ev, strlen(ev));
	bad |= jfield(&buf, &blen, &cap, "AIRLOCK_SEQ", seq, strlen(seq));
	if (tool != NULL)
		bad |= jfield(
		    &buf, &blen, &cap, "AIRLOCK_TOOL", tool, strlen(tool));
	if (dec != NULL)
		bad |= jfield(
		    &buf, &blen, &cap, "AIRLOCK_DECISION", dec, strlen(dec));
	if (with_record)
		bad |= jfield(&buf, &blen, &cap, "AIRLOCK_RECORD", line, len);
	else
		bad |= jfield(&buf, &blen, &cap, "AIRLOCK_RECORD_OMITTED",
		    "too large for a datagram", 24);
	free(tool);
	free(dec);
	if (bad) {
		free(buf);
		dropped(o, "out of memory");
		return;
	}
	iov.iov_base = buf;
	iov.iov_len = blen;
	if (send_iov(o, &iov, 1) != 0) {
		if (errno == EMSGSIZE && with_record) {
			free(buf);
			ship_journald(o, line, len, rec, 0);
			return;
		}
		dropped(o, strerror(errno));
	}
	free(buf);
}

/*
 * An SD-PARAM value: |raw| escaped for people (meta_value(), at most 128
 * bytes and "..."), then '"', '\' and ']' escaped (RFC 5424, 6.3.3).
 */
static void
sd_value(char *out, size_t outlen, const char *raw)
{
	char *e = meta_value(raw, 128);
	const char *v = e;
	size_t o = 0;

	for (; v != NULL && *v != '\0' && o + 3 < outlen; v++) {
		if (*v == '"' || *v == '\\' || *v == ']')
			out[o++] = '\\';
		out[o++] = *v;
	}
	out[o] = '\0';
	free(e);
}

static void
ship_syslog(struct ship_out *o, const char *host, const char *line, size_t len,
    json_t *rec)
{
	const char *ev = json_string_value(json_object_get(rec, "event"));
	char head[2048], sess[300], tool[300], dec[300];
	const char *t = json_string_value(json_object_get(rec, "time"));
	struct iovec iov[2];
	int n;

	sd_value(sess, sizeof(sess),
	    json_string_value(json_object_get(rec, "session")));
	sd_value(tool, sizeof(tool), field(rec, "tool"));
	sd_value(dec, sizeof(dec), field(rec, "decision"));
	n = snprintf(head, sizeof(head),
	    "<%d>1 %s %s airlock %d %.32s "
	    "[" SD_ID " session=\"%s\" event=\"%s\" seq=\"%lld\"%s%s%s%s%s%s] "
	    "\xef\xbb\xbf",
	    o->facility * 8 + severity(rec), t, host, (int)getpid(), ev, sess,
	    ev, (long long)json_integer_value(json_object_get(rec, "seq")),
	    tool[0] ? " tool=\"" : "", tool, tool[0] ? "\"" : "",
	    dec[0] ? " decision=\"" : "", dec, dec[0] ? "\"" : "");
	if (n < 0 || (size_t)n >= sizeof(head)) {
		dropped(o, "header too long");
		return;
	}
	iov[0].iov_base = head;
	iov[0].iov_len = (size_t)n;
	iov[1].iov_base = (void *)line;
	iov[1].iov_len = len;
	if (send_iov(o, iov, 2) != 0)
		dropped(o, strerror(errno));
}

void
audit_ship_record(void *arg, const char *line, size_t len, json_t *rec)
{
	struct audit_ship *s = arg;
	size_t i;

	if (s == NULL || rec == NULL ||
	    !json_is_string(json_object_get(rec, "event")) ||
	    !json_is_string(json_object_get(rec, "session")) ||
	    !json_is_string(json_object_get(rec, "time")))
		return;
	for (i = 0; i < s->n; i++) {
		if (s->out[i].kind == SHIP_JOURNALD)
			ship_journald(&s->out[i], line, len, rec, 1);
		else
			ship_syslog(&s->out[i], s->host, line, len, rec);
	}
}

uint64_t
audit_ship_dropped(const struct audit_ship *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; s != NULL && i < s->n; i++)
		n += s->out[i].dropped;
	return n;
}

size_t
audit_ship_count(const struct audit_ship *s)
{
	return s != NULL ? s->n : 0;
}

int
audit_ship_sync_exec_end(const struct audit_ship *s)
{
	return s != NULL && s->sync_exec_end;
}

void
audit_ship_free(struct audit_ship *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		if (s->out[i].fd != -1)
			close(s->out[i].fd);
	free(s);
}
