/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock pending / approve / deny: the human side of approvals.
 *
 * Each running session has a control socket in the runtime directory.
 * These commands find the sessions (or take --session), list what waits,
 * show the exact action and its evidence, and send a decision bound to
 * the action's digest.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "broker/approval.h"
#include "broker/denials.h"
#include "broker/reqsig.h"
#include "common/approver_token.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/shparse.h"
#include "policy/writepolicy.h"
#include "proxy/rules.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/trustkeys.h"

/* Writes |s| and a newline to the socket |fd|: 0, or -1 with errno set. */
static int
send_line(int fd, const char *s)
{
	const char *parts[2] = { s, "\n" };
	size_t i, off, len;
	ssize_t n;

	for (i = 0; i < 2; i++) {
		len = strlen(parts[i]);
		for (off = 0; off < len; off += (size_t)n)
			if ((n = send(fd, parts[i] + off, len - off,
				 MSG_NOSIGNAL)) == -1 &&
			    errno != EINTR)
				return -1;
			else if (n == -1)
				n = 0;
	}
	return 0;
}

/*
 * Sends |req| to the session socket |path| and returns its reply, or NULL
 * with errno set (EACCES: the socket's mode keeps us out).
 */
/*
 * A reply is one line of JSON.  A pending approval's evidence may hold
 * a request of up to a frame's 1 MiB, several times over once escaped:
 * the line may be long, but not without bound.
 */
#define CONTROL_REPLY_MAX (64 * 1024 * 1024)

static json_t *
control_call(const char *path, json_t *req)
{
	struct sockaddr_un sun;
	char *s, *buf = NULL;
	size_t got = 0, cap = 0;
	ssize_t n;
	int fd, saved;
	json_t *reply;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return NULL;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	/*
	 * A refused peer is told why before it sends anything: not an error,
	 * and no SIGPIPE either (MSG_NOSIGNAL) when the broker has already
	 * closed the connection; its answer is read below.
	 */
	if ((s = json_dumps(req, JSON_COMPACT)) == NULL ||
	    send_line(fd, s) != 0) {
		if (s == NULL || errno != EPIPE) {
			free(s);
			close(fd);
			errno = EPROTO;
			return NULL;
		}
	}
	free(s);
	for (;;) {
		if (got + 1 >= cap) {
			if (cap >= CONTROL_REPLY_MAX)
				break;
			cap = cap == 0 ? 65536 : cap * 2;
			buf = xreallocarray(buf, cap, 1);
		}
		if ((n = read(fd, buf + got, cap - 1 - got)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Only the bytes just read can hold the end of the line. */
		if (memchr(buf + got, '\n', (size_t)n) != NULL) {
			got += (size_t)n;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	reply = json_loads(buf, JSON_DISABLE_EOF_CHECK, NULL);
	free(buf);
	if (reply == NULL)
		errno = EPROTO;
	return reply;
}

/*
 * Whether the sockets in |dir| are sessions' and not someone else's: it
 * must be a directory (not a symlink), owned by us or by root, that no
 * one else may write to.  Without XDG_RUNTIME_DIR a user's runtime
 * directory is /tmp/airlock-run-UID, which any local user may create
 * first: before, pending listed the sessions they planted there (a
 * forged action) and approve --token handed them the token meant for the
 * session it names (a denial lost).  A directory that is missing is
 * skipped quietly; one that is not safe is skipped and said.
 */
static int
session_dir_safe(const char *dir)
{
	struct stat st;
	const char *kind;

	if (lstat(dir, &st) == -1)
		return 0;
	if (S_ISDIR(st.st_mode) &&
	    (st.st_uid == geteuid() || st.st_uid == 0) &&
	    (st.st_mode & 0022) == 0)
		return 1;
	kind = S_ISDIR(st.st_mode) ? "a directory" :
	    S_ISLNK(st.st_mode) ? "a symlink" : "not a directory";
	log_warnx("%s: not searched for sessions: it must be a directory "
		  "owned by you (uid %u) or root that no one else can write "
		  "to, and it is %s owned by uid %u, mode %04o; another user "
		  "may have made it: remove it",
	    dir, (unsigned)geteuid(), kind, (unsigned)st.st_uid,
	    (unsigned)(st.st_mode & 07777));
	return 0;
}

/*
 * The directories holding control sockets: ours, and (unless
 * AIRLOCK_RUNTIME_DIR names one) the system one, root's configured
 * runtime directory (PATHS_RUNTIME_DEFAULT), where sessions started by
 * root live; their approvers may be other users.  Only those that
 * session_dir_safe() accepts.
 */
static size_t
session_dirs(char dirs[2][PATH_MAX])
{
	char own[PATH_MAX];
	size_t n = 0;
	int have = approvals_runtime_dir(own, sizeof(own)) == 0;

	if (have && session_dir_safe(own))
		snprintf(dirs[n++], PATH_MAX, "%s", own);
	if (getenv("AIRLOCK_RUNTIME_DIR") == NULL &&
	    (!have || strcmp(own, PATHS_RUNTIME_DEFAULT) != 0) &&
	    session_dir_safe(PATHS_RUNTIME_DEFAULT))
		snprintf(dirs[n++], PATH_MAX, "%s", PATHS_RUNTIME_DEFAULT);
	return n;
}

/* Sessions that would not let us in, and why (for pending --json too). */
static json_t *refusals;

static void
refused(const char *session, const char *why)
{
	if (refusals == NULL)
		refusals = json_array();
	json_array_append_new(refusals,
	    json_pack("{s:s, s:s}", "session", session, "error", why));
	log_warnx("session %s refused you: %s", session, why);
}

/*
 * Calls |fn| for every session socket (or just --session's).  Returns
 * the number of sessions reached; refusals are recorded and reported.
 */
static int
for_each_session(
    const char *only, void (*fn)(const char *, json_t *, void *), void *arg)
{
	char dirs[2][PATH_MAX], path[PATH_MAX + 300], sess[256];
	char why[PATH_MAX + 700];
	DIR *d;
	struct dirent *de;
	struct stat st;
	json_t *req, *reply;
	size_t nd, k;
	int n = 0;

	nd = session_dirs(dirs);
	req = json_pack("{s:s}", "op", "pending");
	for (k = 0; k < nd; k++) {
		if ((d = opendir(dirs[k])) == NULL) {
			if (errno == EACCES)
				log_warnx("%s: %s (sessions there are not "
					  "open to you)",
				    dirs[k], strerror(errno));
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			size_t len = strlen(de->d_name);

			if (len < 6 || len - 5 >= sizeof(sess) ||
			    strcmp(de->d_name + len - 5, ".sock") != 0)
				continue;
			snprintf(sess, sizeof(sess), "%.*s", (int)(len - 5),
			    de->d_name);
			if (only != NULL && strcmp(sess, only) != 0)
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", dirs[k],
				de->d_name) >= (int)sizeof(path))
				continue;
			if ((reply = control_call(path, req)) == NULL) {
				if (errno == EACCES && lstat(path, &st) == 0) {
					if (snprintf(why, sizeof(why),
						"its "
						"control socket %s admits only uid "
						"%u, who started it (the manifest "
						"names no other approvers)",
						path, (unsigned)st.st_uid) < 0)
						why[0] = '\0';
					refused(sess, why);
				} else if (errno == EPROTO)
					/* Connected: no stale socket. */
					refused(sess, "its answer could not be "
					    "read (not JSON, or over 64 MiB)");
				continue; /* else a stale socket */
			}
			if (json_object_get(reply, "error") != NULL)
				refused(sess,
				    json_string_value(
					json_object_get(reply, "error")));
			else {
				fn(path, reply, arg);
				n++;
			}
			json_decref(reply);
		}
		closedir(d);
	}
	json_decref(req);
	return n;
}

/*
 * Everything an approval carries may come from the agent: the diff, the
 * arguments, the evidence.  It reaches the approver's terminal only
 * through vis (common/vis.h), so an escape sequence cannot erase or
 * move a line and a bidi control cannot reorder one.
 */
static void
put_vis(FILE *fp, const char *s, int flags)
{
	char *v;

	if ((v = vis_str(s, flags)) == NULL)
		fatalx("out of memory");
	fputs(v, fp);
	free(v);
}

/* A column: |s| escaped, then padded to |width|. */
static void
put_vis_col(FILE *fp, const char *s, int width)
{
	char *v;

	if ((v = vis_str(s, 0)) == NULL)
		fatalx("out of memory");
	fprintf(fp, "%-*s ", width, v);
	free(v);
}

/*
 * JSON text for a person.  json_dumps escapes C0 controls but leaves C1
 * controls, DEL and bidi or zero-width characters raw; vis escapes those
 * and leaves JSON's own backslash escapes as they are (VIS_NOSLASH), and
 * escapes a character drawn as '"' (VIS_QUOTED): an agent's
 * {"url":"a\u201D,\u201Dpath\u201D:\u201D..."} seemed to close its
 * string and open a key of its own.
 */
static void
put_json(FILE *fp, json_t *j, size_t jflags, int vflags)
{
	char *s;

	if ((s = json_dumps(j, jflags | JSON_ENCODE_ANY)) == NULL)
		return;
	put_vis(fp, s, vflags | VIS_NOSLASH | VIS_QUOTED);
	free(s);
}

/*
 * JSON for programs that a person may also read: printable ASCII and
 * newlines only, and JSON all the same.  JSON_ENSURE_ASCII escapes
 * everything else but DEL, which JSON may leave raw; it is written
 * \u007f here.  (Through vis, DEL came out as \x7f, which is not JSON:
 * an agent's argument holding one made "airlock pending --json"
 * unreadable for every session it listed.)
 */
static void
put_json_ascii(json_t *j)
{
	char *s, *p;

	if ((s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS |
	    JSON_ENSURE_ASCII | JSON_ENCODE_ANY)) == NULL)
		fatalx("out of memory");
	for (p = s; *p != '\0'; p++)
		if (*p == 0x7f)
			fputs("\\u007f", stdout);
		else
			putchar(*p);
	putchar('\n');
	free(s);
}

/*
 * Each line of a changed file's first lines (the agent's to write),
 * escaped and begun with HEAD_MARK, which no line of airlock's own
 * begins with.  Written as they were, at the start of a row, a line
 * "  evidence:  {\"gates\": [...\"passed\": true}]}" in a rewritten
 * deploy.sh read as airlock's own evidence of gates the session never
 * gave, above the real one.
 */
#define HEAD_MARK "      | "

static void
put_head(FILE *fp, const char *head)
{
	const char *nl;
	char *v;
	size_t n;

	for (; *head != '\0'; head += n + (nl != NULL)) {
		nl = strchr(head, '\n');
		n = nl != NULL ? (size_t)(nl - head) : strlen(head);
		if ((v = vis_dup(head, n, VIS_KEEP_TAB)) == NULL)
			fatalx("out of memory");
		fprintf(fp, "%s%s\n", HEAD_MARK, v);
		free(v);
	}
}

/*
 * What will run, as the digest binds it: the argv, the working
 * directory, the environment's names and each pinned file's digest; and,
 * when an earlier approval was voided, what changed since (the digests
 * and the first lines of each changed file as it is now).
 */
static void
print_execution(FILE *fp, json_t *x, json_t *changed)
{
	const char *path;
	json_t *v;
	size_t i;

	if (!json_is_object(x))
		return;
	fprintf(fp, "  argv:      ");
	put_json(fp, json_object_get(x, "argv"), JSON_COMPACT, 0);
	fprintf(fp, "\n  cwd:       ");
	put_vis(fp, json_string_value(json_object_get(x, "cwd")), 0);
	fprintf(fp, "\n  env:       ");
	json_array_foreach(json_object_get(x, "env"), i, v)
	{
		fprintf(fp, "%s", i ? " " : "");
		put_vis(fp, json_string_value(v), 0);
	}
	fprintf(fp, "\n  pinned code:%s\n",
	    json_object_size(json_object_get(x, "pinned")) ? "" : " (none)");
	json_object_foreach(json_object_get(x, "pinned"), path, v)
	{
		fprintf(fp, "    ");
		put_vis(fp, json_string_value(v), 0);
		fprintf(fp, "  ");
		put_vis(fp, path, 0);
		fprintf(fp, "\n");
	}
	if (json_object_size(changed) == 0)
		return;
	fprintf(fp, "  CHANGED since an earlier approval (voided):\n");
	json_object_foreach(changed, path, v)
	{
		const char *head =
		    json_string_value(json_object_get(v, "nowHead"));

		fprintf(fp, "    ");
		put_vis(fp, path, 0);
		fprintf(fp, "\n      approvedSha: ");
		put_vis(fp, json_is_string(json_object_get(v, "approvedSha"))
			? json_string_value(json_object_get(v, "approvedSha"))
			: "(absent)",
		    0);
		fprintf(fp, "\n      nowSha:      ");
		put_vis(fp, json_is_string(json_object_get(v, "nowSha"))
			? json_string_value(json_object_get(v, "nowSha"))
			: "(absent)",
		    0);
		fprintf(fp, "\n");
		if (head != NULL) {
			fprintf(fp, "      now begins:\n");
			put_head(fp, head);
			/* A benign start would pass for the whole script. */
			if (json_is_true(json_object_get(v, "nowHeadCut")))
				fprintf(fp, "      ... CUT: the file goes on "
				    "past these lines, unshown: read all of it "
				    "(nowSha) before you decide\n");
		}
	}
}

/*
 * The arguments for display: a string argument that is the diff itself
 * (apply_patch's patch) is named, not repeated: the diff is shown once,
 * below.  Returns a new reference.
 */
static json_t *
args_for_display(json_t *args, const char *diff)
{
	const char *k;
	json_t *copy, *v;

	if (diff == NULL || !json_is_object(args))
		return json_incref(args);
	copy = json_copy(args);
	json_object_foreach(args, k, v)
	{
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), diff) == 0)
			json_object_set_new(
			    copy, k, json_string("<the diff, shown below>"));
	}
	return copy;
}

/*
 * An escalation (docs/ESCALATION.md): the refused call it re-runs and
 * exactly what that one run gets beyond the manifest, each entry escaped.
 */
/* |d|'s string member |key| escaped, or "?". */
static void
put_member(FILE *fp, json_t *d, const char *key)
{
	const char *v = json_string_value(json_object_get(d, key));

	put_vis(fp, v != NULL ? v : "?", 0);
}

/*
 * The warnings of widening |w|, again at the end of the long view, the
 * last lines before the prompt: the widening is shown first and may
 * have scrolled away.  First those of the evidence |ev|: the broker's,
 * who knows its machine's own addresses (escalation.warnings,
 * denials_warnings()); then any this machine finds that the evidence
 * does not say (approve --sign elsewhere, or evidence without them).
 */
static void
print_widening_warnings(FILE *fp, json_t *ev, json_t *w)
{
	json_t *said = json_object_get(
		   json_object_get(ev, "escalation"), "warnings"),
	       *mine = denials_warnings(w), *v, *s;
	size_t i, j;
	int dup;

	json_array_foreach(said, i, v)
	{
		if (!json_is_string(v))
			continue;
		fprintf(fp, "  WARNING:   escalation ");
		put_vis(fp, json_string_value(v), 0);
		fprintf(fp, "\n");
	}
	json_array_foreach(mine, i, v)
	{
		dup = 0;
		json_array_foreach(said, j, s)
		{
			dup |= json_equal(s, v);
		}
		if (dup)
			continue;
		fprintf(fp, "  WARNING:   escalation %s%s\n",
		    json_string_value(v),
		    json_is_array(said) ? " (as this machine sees it)" : "");
	}
	json_decref(mine);
}

static void
print_widening(FILE *fp, json_t *ev, json_t *x)
{
	char desc[RULES_REASON_MAX];
	const char *warn;
	json_t *esc = json_object_get(ev, "escalation"), *d, *w;
	const char *layer, *access;
	size_t i;

	/* What the digest binds (the execution's), else the evidence's. */
	if ((w = json_object_get(x, "widening")) == NULL)
		w = json_object_get(esc, "widening");
	if (!json_is_object(esc) && !json_is_array(w))
		return;
	fprintf(fp, "  ESCALATION: re-runs call ");
	if (json_is_object(esc))
		put_json(fp, json_object_get(esc, "callId"), JSON_COMPACT, 0);
	else
		fprintf(fp, "(refused earlier)");
	fprintf(fp, " once with, for that run only:\n");
	/*
	 * Each part printed whole: a path the agent's command named may be
	 * as long as PATH_MAX, and one cut to a buffer showed the approver
	 * a directory where the bind was of a file deep beneath it.
	 */
	json_array_foreach(w, i, d)
	{
		layer = json_string_value(json_object_get(d, "layer"));
		if (layer == NULL)
			layer = "?";
		fprintf(fp, "    ");
		put_member(fp, d, "denial");
		fprintf(fp, "  ");
		if (strcmp(layer, "network") == 0) {
			fprintf(fp, "network ");
			put_member(fp, d, "host");
			fprintf(fp, " port %lld", (long long)json_integer_value(
			    json_object_get(d, "port")));
			if ((warn = denials_warning(d, desc, sizeof(desc))) !=
			    NULL)
				fprintf(fp, "\n        WARNING: %s: it is %s, "
				    "not the internet; the egress proxy "
				    "refuses it unless the manifest's "
				    "allowAddresses names it", warn, desc);
		} else if (strcmp(layer, "filesystem") == 0) {
			access = json_string_value(json_object_get(d, "access"));
			fprintf(fp, "%s ", access != NULL &&
			    strcmp(access, "write") == 0 ? "read-write" :
			    "read-only");
			put_member(fp, d, "path");
			/* A bind follows links: where it leads, as bound. */
			if (json_is_string(json_object_get(d, "resolved")) &&
			    !json_equal(json_object_get(d, "resolved"),
			    json_object_get(d, "path"))) {
				fprintf(fp, " (resolves to ");
				put_member(fp, d, "resolved");
				fprintf(fp, ")");
			}
			/* ~/.bashrc: run at the person's next shell. */
			if ((warn = denials_warning(d, desc, sizeof(desc))) !=
			    NULL)
				fprintf(fp, "\n        WARNING: %s: %s", warn,
				    desc);
		} else if (strcmp(layer, "syscall") == 0) {
			fprintf(fp, "syscall ");
			put_member(fp, d, "syscall");
		} else {
			fprintf(fp, "limit ");
			put_member(fp, d, "limit");
			fprintf(fp, " doubled from %lld", (long long)
			    json_integer_value(json_object_get(d, "value")));
		}
		fprintf(fp, "\n");
	}
}

/*
 * Whether what |p| shows is what its digest binds: the digest is worked
 * out again from the tool, the arguments and the execution shown
 * (approvals_digest(), as the broker does), and what the review shows
 * of them a second time must be the same (the diff, an escalation's
 * widening, the workspace digest).  A decision names only the digest:
 * without this, a request carried by chat, a ticket or a notify hook
 * (approve --sign) could show one action and hold the digest of
 * another, and the approver would sign the other.  Returns 1, or 0 with
 * |why| set.
 */
static int
approval_bound(json_t *p, char *why, size_t whylen)
{
	const char *tool = json_string_value(json_object_get(p, "tool"));
	const char *digest = json_string_value(json_object_get(p, "digest"));
	json_t *args = json_object_get(p, "arguments");
	json_t *x = json_object_get(p, "execution");
	json_t *ev = json_object_get(p, "evidence");
	json_t *diff = json_object_get(ev, "diff"), *v;
	json_t *esc = json_object_get(ev, "escalation");
	json_t *ws = json_object_get(ev, "workspaceDigest");
	char hex[65];
	const char *k;
	int found = 0;

	if (tool == NULL || digest == NULL || !json_is_object(args) ||
	    (x != NULL && !json_is_object(x))) {
		snprintf(why, whylen, "it lacks its tool, arguments or digest");
		return 0;
	}
	approvals_digest(tool, args, x, hex);
	if (strcmp(hex, digest) != 0) {
		snprintf(why, whylen, "its digest is not the digest of the "
		    "tool, arguments and execution it shows");
		return 0;
	}
	if (diff != NULL) {
		json_object_foreach(args, k, v)
			found |= json_is_string(v) && json_equal(v, diff);
		if (!found) {
			snprintf(why, whylen, "the diff it shows is none of "
			    "its arguments");
			return 0;
		}
	}
	if (esc != NULL && !json_equal(json_object_get(esc, "widening"),
	    json_object_get(x, "widening"))) {
		snprintf(why, whylen, "the escalation's widening it shows is "
		    "not the one its digest binds");
		return 0;
	}
	if (ws != NULL && json_object_get(x, "workspace") != NULL &&
	    !json_equal(ws, json_object_get(x, "workspace"))) {
		snprintf(why, whylen, "the workspace digest it shows is not "
		    "the one its digest binds");
		return 0;
	}
	return 1;
}

/*
 * A long action scrolls: what a person sees next to the prompt is its
 * end.  An agent puts what it wants unread first and pads the rest
 * with anything (a comment, a long harmless argument).  Said last, next
 * to the prompt, when the arguments are longer than a screen holds.
 */
#define REVIEW_LONG 2048
#define REVIEW_ROW 80	/* a row of the terminal, in bytes, at least */

/* How many bytes |j| takes to show as JSON (escaped, as put_json()). */
static size_t
shown_json_len(json_t *j)
{
	char *s, *v;
	size_t len;

	if (j == NULL)
		return 0;
	if ((s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS |
	    JSON_ENCODE_ANY)) == NULL)
		return 0;
	/* As shown: a long run of blanks is a few bytes (vis). */
	v = vis_str(s, VIS_NOSLASH);
	free(s);
	if (v == NULL)
		fatalx("out of memory");
	len = strlen(v);
	free(v);
	return len;
}

/*
 * The agent's stated reason is shown after the arguments: as padding it
 * pushes them out of sight just as well (4096 bytes of controls take
 * 16 KiB to show), so it counts too.  So does an escalation: its widening
 * is shown first, and it and the evidence's list of what the call was
 * denied name paths the agent's command named (16 of 4 KB each, each
 * also in its hint): a read of another user's file at the top scrolled
 * away under hundreds of KB of harmless paths of the agent's own home,
 * with no note, for the arguments ({}) were short.
 */
static void
print_length_note(FILE *fp, json_t *p, const char *reason)
{
	json_t *ev = json_object_get(p, "evidence"), *c;
	const char *parts[4], *path, *head, *line;
	size_t len, rlen = 0, elen, hlen = 0, n, k = 0, i;
	char *v;

	len = shown_json_len(json_object_get(p, "arguments"));
	if (reason != NULL) {
		if ((v = vis_str(reason, 0)) == NULL)
			fatalx("out of memory");
		rlen = strlen(v);
		free(v);
	}
	elen = shown_json_len(json_object_get(ev, "escalation")) +
	    shown_json_len(json_object_get(json_object_get(p, "execution"),
	    "widening"));
	/*
	 * A changed file's first lines (put_head()), each a row at least:
	 * 40 short ones are more than a screen, and a payload on the first
	 * scrolled out of sight under 39 lines of the agent's.
	 */
	json_object_foreach(json_object_get(ev, "changed"), path, c)
	{
		if ((head = json_string_value(json_object_get(c,
		    "nowHead"))) == NULL)
			continue;
		if ((v = vis_str(head, VIS_MULTILINE)) == NULL)
			fatalx("out of memory");
		for (line = v; *line != '\0'; line += n + (line[n] != '\0')) {
			n = strcspn(line, "\n");
			hlen += n + strlen(HEAD_MARK) < REVIEW_ROW ? REVIEW_ROW :
			    n + strlen(HEAD_MARK);
		}
		free(v);
	}
	if (len + rlen + elen + hlen <= REVIEW_LONG)
		return;
	parts[k++] = "its arguments";
	if (rlen > 0)
		parts[k++] = "the agent's reason";
	if (elen > 0)
		parts[k++] = "its escalation";
	if (hlen > 0)
		parts[k++] = "the changed files' first lines";
	fprintf(fp, "  NOTE:      ");
	for (i = 0; i < k; i++)
		fprintf(fp, "%s%s", i == 0 ? "" : i + 1 == k ? " and " : ", ",
		    parts[i]);
	fprintf(fp, " take %zu bytes to show: more than a screen, so the "
	    "start of this action is above, out of sight; read it all "
	    "(airlock pending -v | less) before you decide\n",
	    len + rlen + elen + hlen);
}

/* A row for workspace file path[0..len) when it runs later. */
static void
put_runs_on(FILE *fp, const char *path, size_t len)
{
	const char *runs;
	char *s;

	if (len >= PATH_MAX || memchr(path, '\0', len) != NULL)
		return;
	s = xcalloc(1, len + 1);
	memcpy(s, path, len);
	if ((runs = writepolicy_runs_on(s)) != NULL) {
		fprintf(fp, "  WARNING:   writes ");
		put_vis(fp, s, 0);
		fprintf(fp, ", which runs later, outside any sandbox: "
		    "RUNS ON %s\n", runs);
	}
	free(s);
}

/*
 * A warning row, the last before the prompt, for each workspace file the
 * action writes that runs as code at a later, unsandboxed action
 * (writepolicy_runs_on(): a shell's start-up files, .envrc, .npmrc,
 * ...): a string argument that names one (write_file's path), and each
 * file the diff writes ("+++ b/PATH").  A write_file of .bashrc showed
 * as one more path and content.
 */
static void
print_runs_on(FILE *fp, json_t *args, const char *diff)
{
	const char *k, *line, *end;
	json_t *v;

	json_object_foreach(args, k, v)
	{
		if (json_is_string(v))
			put_runs_on(fp, json_string_value(v),
			    json_string_length(v));
	}
	for (line = diff; line != NULL && *line != '\0'; line = end) {
		if ((end = strchr(line, '\n')) != NULL)
			end++;
		if (strncmp(line, "+++ b/", 6) == 0)
			put_runs_on(fp, line + 6,
			    strcspn(line + 6, "\t\r\n"));
	}
}

/* A warning row for the word |w| of a command, if it is
 * writepolicy_word_sets_up()'s. */
static void
put_sets_up(FILE *fp, const char *w)
{
	const char *runs;

	if ((runs = writepolicy_word_sets_up(w)) != NULL) {
		fprintf(fp, "  WARNING:   its command names ");
		put_vis(fp, w, 0);
		fprintf(fp, ", which sets up what runs later, outside any "
		    "sandbox: %s\n", runs);
	}
}

/* A warning row for the shell word |w| of a command, if it names one. */
static void
put_shell_word(FILE *fp, const char *w, int redirected)
{
	const char *runs;

	if ((runs = writepolicy_word_runs_on(w)) != NULL) {
		fprintf(fp, "  WARNING:   its command %s ",
		    redirected ? "writes" : "names");
		put_vis(fp, w, 0);
		fprintf(fp, ", which runs later, outside any sandbox: "
		    "RUNS ON %s\n", runs);
	} else
		put_sets_up(fp, w);
}

/* put_shell_word() of each run of |cmd| between blanks, quotes and
 * shell operators: for a string the parser cannot read. */
static void
put_shell_tokens(FILE *fp, const char *cmd)
{
	const char *sep = " \t\n;&|<>()`'\"{}\\";
	size_t n;
	char *w;

	for (cmd += strspn(cmd, sep); *cmd != '\0';
	     cmd += n, cmd += strspn(cmd, sep)) {
		n = strcspn(cmd, sep);
		w = xcalloc(1, n + 1);
		memcpy(w, cmd, n);
		put_shell_word(fp, w, 0);
		free(w);
	}
}

/* Whether redirection |r| writes its target. */
static int
redir_writes(const struct shredir *r)
{
	return r->op != SHR_IN && r->op != SHR_DUPIN && r->op != SHR_HEREDOC &&
	    r->op != SHR_HERESTR;
}

/* Whether some command of |sp| writes to the word |w| by redirection. */
static int
redirected_to(const struct shparse *sp, const char *w)
{
	size_t i, k;

	for (i = 0; i < sp->ncmds; i++)
		for (k = 0; k < sp->cmds[i].nredirs; k++)
			if (redir_writes(&sp->cmds[i].redirs[k]) &&
			    strcmp(sp->cmds[i].redirs[k].target.text, w) == 0)
				return 1;
	return 0;
}

/* The rows of |cmd| (put_shell_runs_on()), unparsed or parsed. */
static void
shell_rows(FILE *fp, const char *cmd)
{
	struct shparse *sp = NULL;
	const struct shcmd *c;
	size_t i, k;

	if (shparse(cmd, strlen(cmd), &sp) != 0) {
		/* Unparsed ("case ... esac"): each run of its text between
		 * blanks, quotes and operators, named. */
		put_shell_tokens(fp, cmd);
		shparse_free(sp);
		return;
	}
	for (i = 0; i < sp->ncmds; i++) {
		c = &sp->cmds[i];
		for (k = 0; k < c->nassigns; k++)
			put_shell_word(fp, c->assigns[k].text, 0);
		for (k = 0; k < c->nwords; k++)
			if (!redirected_to(sp, c->words[k].text))
				put_shell_word(fp, c->words[k].text, 0);
		for (k = 0; k < c->nredirs; k++)
			if (redir_writes(&c->redirs[k]))
				put_shell_word(fp, c->redirs[k].target.text, 1);
	}
	shparse_free(sp);
}

/* Whether buf[0..line) holds the row line[0..n) as a row of its own. */
static int
row_before(const char *buf, const char *line, size_t n)
{
	const char *p, *end;

	for (p = buf; p < line; p = end) {
		end = strchr(p, '\n') + 1;
		if ((size_t)(end - p) == n && memcmp(p, line, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * Warning rows for what the shell command string |cmd| writes or sets
 * up that runs later: each assignment, word and redirection target of
 * its commands ("writes" for a word it also redirects to), or, where it
 * does not parse, each run of its text; each row once.
 */
static void
put_shell_runs_on(FILE *fp, const char *cmd)
{
	char *buf = NULL, *line, *end;
	size_t len = 0, n;
	FILE *mfp;

	if ((mfp = open_memstream(&buf, &len)) == NULL)
		fatal("open_memstream");
	shell_rows(mfp, cmd);
	if (fclose(mfp) == EOF)
		fatal("open_memstream");
	for (line = buf; *line != '\0'; line = end) {
		end = strchr(line, '\n');
		end = end != NULL ? end + 1 : line + strlen(line);
		n = (size_t)(end - line);
		if (!row_before(buf, line, n))
			fwrite(line, 1, n, fp);
	}
	free(buf);
}

/*
 * Warning rows for a shell command string the action runs (its
 * execution's argv: a shell, "-c" and the string, as an exec tool's
 * "/bin/sh -c COMMAND"): a start-up file it writes or names ("echo x >>
 * ~/.bashrc; ls", "tee -a ~/.profile", "> .git/hooks/pre-commit"),
 * crontab, git's core.hooksPath; and crontab or git's core.hooksPath
 * among the words of any other argv ("git config {key} {value}").  The string showed as one more
 * argument, where a write_file of the same path had its row.
 */
static void
print_shell_runs_on(FILE *fp, json_t *execution)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh",
		"ksh", "mksh", "ash", "busybox" };
	json_t *argv = json_object_get(execution, "argv");
	const char *a, *base;
	size_t i, k, n = json_array_size(argv);
	int shell = 0;

	for (i = 0; i < n; i++) {
		if ((a = json_string_value(json_array_get(argv, i))) == NULL)
			continue;
		if (shell && a[0] != '-')
			put_shell_runs_on(fp, a);
		else
			put_sets_up(fp, a); /* git config core.hooksPath */
		base = strrchr(a, '/');
		base = base != NULL ? base + 1 : a;
		for (k = 0; !shell && k < sizeof(shells) / sizeof(shells[0]);
		     k++)
			shell = strcmp(base, shells[k]) == 0;
	}
}

static void
render_approval(FILE *fp, json_t *p, int verbose)
{
	json_t *ev = json_object_get(p, "evidence");
	const char *diff = json_string_value(json_object_get(ev, "diff"));
	const char *reason =
	    json_string_value(json_object_get(ev, "agentReason"));
	json_t *args = args_for_display(json_object_get(p, "arguments"), diff);
	json_t *w;

	put_vis_col(fp, json_string_value(json_object_get(p, "id")), 10);
	put_vis_col(fp, json_string_value(json_object_get(p, "session")), 22);
	put_vis_col(fp, json_string_value(json_object_get(p, "tool")), 18);
	fprintf(fp, "expires ");
	put_vis(fp, json_string_value(json_object_get(p, "expiresAt")), 0);
	fprintf(fp, "\n");
	print_widening(fp, ev, json_object_get(p, "execution"));
	if (verbose) {
		json_t *rest;

		fprintf(fp, "  action:    ");
		put_vis(fp, json_string_value(json_object_get(p, "tool")), 0);
		fprintf(fp, " ");
		if (args != NULL)
			put_json(fp, args, JSON_COMPACT | JSON_SORT_KEYS, 0);
		fprintf(fp, "\n  reason:    ");
		if (reason != NULL)
			put_vis(fp, reason, 0);
		else
			fprintf(fp, "(the agent stated none)");
		fprintf(fp, "\n  digest:    ");
		put_vis(fp, json_string_value(json_object_get(p, "digest")), 0);
		fprintf(fp, "\n  requested: ");
		put_vis(fp,
		    json_string_value(json_object_get(p, "requestedAt")), 0);
		fprintf(fp, "\n");
		if (json_is_object(json_object_get(p, "execution")))
			fprintf(fp, "  will run:\n");
		print_execution(fp, json_object_get(p, "execution"),
		    json_object_get(ev, "changed"));
		/* Each line escaped; only the diff's real line breaks kept. */
		if (diff != NULL) {
			fprintf(fp, "  diff:\n");
			put_vis(fp, diff, VIS_MULTILINE);
			fprintf(fp, "\n");
		}
		/* The rest of the evidence: what is shown above is not again. */
		if (json_is_object(ev)) {
			rest = json_copy(ev);
			json_object_del(rest, "diff");
			json_object_del(rest, "changed");
			json_object_del(rest, "agentReason");
			if (json_object_size(rest) > 0) {
				fprintf(fp, "  evidence:  ");
				put_json(fp, rest,
				    JSON_INDENT(2) | JSON_SORT_KEYS,
				    VIS_KEEP_NL);
				fprintf(fp, "\n");
			}
			json_decref(rest);
		}
		print_length_note(fp, p, reason);
		if ((w = json_object_get(json_object_get(p, "execution"),
		    "widening")) == NULL)
			w = json_object_get(json_object_get(ev, "escalation"),
			    "widening");
		print_widening_warnings(fp, ev, w);
	} else if (args != NULL) {
		fprintf(fp, "  ");
		put_json(fp, args, JSON_COMPACT | JSON_SORT_KEYS, 0);
		fprintf(fp, "\n");
	}
	print_runs_on(fp, json_object_get(p, "arguments"), diff);
	print_shell_runs_on(fp, json_object_get(p, "execution"));
	json_decref(args);
}

/*
 * |p| as render_approval() writes it, folded to the terminal's width
 * (vis_fold()): a line of the agent's that the terminal wrapped began a
 * row with whatever the agent put there, a forged "  evidence:" line or
 * code that read as unchanged context.
 */
static void
print_approval(json_t *p, int verbose)
{
	char *buf = NULL, *folded;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		fatal("open_memstream");
	render_approval(fp, p, verbose);
	if (fclose(fp) == EOF)
		fatalx("out of memory");
	if ((folded = vis_fold(buf, len, term_columns(STDOUT_FILENO))) == NULL)
		fatalx("out of memory");
	fputs(folded, stdout);
	free(folded);
	free(buf);
}

struct listing {
	int count;
	int verbose;
};

static void
list_one(const char *path, json_t *reply, void *arg)
{
	struct listing *l = arg;
	json_t *p;
	size_t i;

	(void)path;
	json_array_foreach(json_object_get(reply, "pending"), i, p)
	{
		print_approval(p, l->verbose);
		l->count++;
	}
}

struct finding {
	const char *id;
	char path[PATH_MAX + 300];
	json_t *approval;
	int matches;
	int withdrawn;	/* a session withdrew it (its call was cancelled) */
};

static void
find_one(const char *path, json_t *reply, void *arg)
{
	struct finding *f = arg;
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(reply, "pending"), i, p)
	{
		if (strcmp(json_string_value(json_object_get(p, "id")),
			f->id) != 0)
			continue;
		f->matches++;
		snprintf(f->path, sizeof(f->path), "%s", path);
		json_decref(f->approval);
		f->approval = json_incref(p);
	}
	json_array_foreach(json_object_get(reply, "withdrawn"), i, p)
		if (json_is_string(p) &&
		    strcmp(json_string_value(p), f->id) == 0)
			f->withdrawn = 1;
}

/* Reads a whole file (or stdin for "-") as JSON, at most 1 MiB. */
static json_t *
load_json(const char *path)
{
	json_error_t e;
	json_t *j;
	FILE *fp;

	if (strcmp(path, "-") == 0)
		fp = stdin;
	else if ((fp = fopen(path, "re")) == NULL) {
		log_warnx("%s: %s", path, strerror(errno));
		return NULL;
	}
	j = json_loadf(fp, JSON_REJECT_DUPLICATES, &e);
	if (fp != stdin)
		fclose(fp);
	if (j == NULL)
		log_warnx("%s: not JSON: %s (line %d)", path, e.text, e.line);
	return j;
}

/*
 * The approval a request names: a notify payload ({"approval": A}), a
 * "pending --json" listing ({"pending": [A...]}, picked by |id| unless it
 * holds one) or an approval object itself.
 */
static json_t *
request_pick(json_t *req, const char *id)
{
	json_t *list, *p, *found = NULL;
	size_t i, n = 0;

	if (json_is_object(json_object_get(req, "approval")))
		list = json_pack("[O]", json_object_get(req, "approval"));
	else if (json_is_array(json_object_get(req, "pending")))
		list = json_incref(json_object_get(req, "pending"));
	else if (json_is_string(json_object_get(req, "id")))
		list = json_pack("[O]", req);
	else {
		log_warnx("the request is neither a notify payload, pending "
			  "--json output nor an approval");
		return NULL;
	}
	json_array_foreach(list, i, p)
	{
		const char *pid = json_string_value(json_object_get(p, "id"));

		if (pid == NULL || (id != NULL && strcmp(pid, id) != 0))
			continue;
		n++;
		found = p;
	}
	if (n == 1)
		json_incref(found);
	else if (n == 0)
		log_warnx("the request holds no approval%s%s", id ? " " : "",
		    id ? id : "");
	else
		log_warnx("the request holds %zu approvals: name one with "
			  "--id",
		    n);
	json_decref(list);
	return n == 1 ? found : NULL;
}

/*
 * Who sent |p|, as the review says it: the session, signed and
 * certified by one of |hosts| (reqsig.h), or not known.  Returns 1 when
 * it is the session's, else 0 with |why| set.
 */
static int
request_attested(json_t *p, const struct trusted *hosts, char *why,
    size_t whylen)
{
	char host[65];

	if (hosts->n == 0) {
		snprintf(why, whylen, "no --host-key to check it against");
		return 0;
	}
	if (!reqsig_verify(p, (const unsigned char (*)[32])hosts->keys,
	    hosts->n, host, why, whylen))
		return 0;
	snprintf(why, whylen, "signed by session %s, certified by host key "
	    "%.16s... (one you trust)",
	    json_string_value(json_object_get(p, "session")), host);
	return 1;
}

/* approve/deny --sign: a decision token for a request, on stdout or FILE. */
static int
sign_request(int approve, const char *reqpath, const char *id,
    const char *keypath, const struct trusted *hosts, const char *text,
    long expires_in, int yes, const char *outpath)
{
	unsigned char sk[64];
	char err[512], sent[512], answer[16], *s;
	const char *sid, *aid, *dg;
	json_t *req, *p, *tok;
	FILE *fp = stdout;
	int rc = 1, saved = -1, attested;

	if ((req = load_json(reqpath)) == NULL)
		return 1;
	p = request_pick(req, id);
	json_decref(req);
	if (p == NULL)
		return 1;
	sid = json_string_value(json_object_get(p, "session"));
	aid = json_string_value(json_object_get(p, "id"));
	dg = json_string_value(json_object_get(p, "digest"));
	if (sid == NULL || aid == NULL || dg == NULL || strlen(dg) != 64) {
		log_warnx("the approval lacks its session, id or digest");
		json_decref(p);
		return 1;
	}
	if (approve && !approval_bound(p, err, sizeof(err))) {
		log_warnx("approval %s: %s: it was changed on its way here; "
		    "not signed", aid, err);
		json_decref(p);
		return 1;
	}
	/* The digest binds the action; the session's signature the rest. */
	attested = request_attested(p, hosts, sent, sizeof(sent));
	if (approve && hosts->n > 0 && !attested) {
		log_warnx("approval %s: %s: the request cannot be shown to "
		    "come from the session; not signed", aid, sent);
		json_decref(p);
		return 1;
	}
	/* With the token on stdout, the review and the prompt go to stderr. */
	fflush(stdout);
	if (outpath == NULL && ((saved = dup(1)) == -1 || dup2(2, 1) == -1))
		fatal("dup");
	print_approval(p, 1);
	if (attested)
		printf("  sent:      %s\n", sent);
	else
		printf("  sent:      NOT VERIFIED (%s): the action is bound by "
		    "its digest, but the agent's reason and the evidence may "
		    "have been edited on the way\n", sent);
	if (approve && !yes) {
		printf("Sign approval of this exact action? [y/N] ");
		fflush(stdout);
		if (fgets(answer, sizeof(answer), stdin) == NULL ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			printf("not signed\n");
			rc = -1;
		}
	}
	fflush(stdout);
	if (saved != -1 && (dup2(saved, 1) == -1 || close(saved) == -1))
		fatal("dup2");
	if (rc == -1) {
		json_decref(p);
		return 1;
	}
	if (approver_secret_load(keypath, sk, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		json_decref(p);
		return 1;
	}
	tok = approver_token_sign(
	    sid, aid, dg, approve, text, (int64_t)time(NULL) + expires_in, sk);
	sodium_memzero(sk, sizeof(sk));
	json_decref(p);
	if (tok == NULL ||
	    (s = json_dumps(tok,
		 JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)) == NULL) {
		json_decref(tok);
		log_warnx("cannot sign");
		return 1;
	}
	json_decref(tok);
	if (outpath != NULL && (fp = fopen(outpath, "we")) == NULL)
		log_warnx("%s: %s", outpath, strerror(errno));
	else {
		int ok;

		fprintf(fp, "%s\n", s);
		if (fp == stdout)
			ok = fflush(stdout) == 0;
		else
			ok = fclose(fp) == 0;
		if (ok)
			rc = 0;
		else
			log_warnx("%s: %s", outpath ? outpath : "stdout",
			    strerror(errno));
	}
	free(s);
	return rc;
}

/* approve --token: hands a signed token to the session it names. */
static int
send_token(const char *path)
{
	char dirs[2][PATH_MAX], sock[PATH_MAX + 300];
	const char *sid;
	json_t *tok, *req, *reply = NULL;
	size_t nd, k;
	int rc = 1;

	if ((tok = load_json(path)) == NULL)
		return 1;
	sid = json_string_value(json_object_get(tok, "session"));
	if (sid == NULL || strchr(sid, '/') != NULL || sid[0] == '.') {
		log_warnx("the token names no session");
		json_decref(tok);
		return 1;
	}
	req = json_pack("{s:s, s:O}", "op", "token", "token", tok);
	nd = session_dirs(dirs);
	for (k = 0; k < nd && reply == NULL; k++) {
		if (snprintf(sock, sizeof(sock), "%s/%s.sock", dirs[k], sid) >=
		    (int)sizeof(sock))
			continue;
		reply = control_call(sock, req);
	}
	if (reply == NULL)
		log_warnx("session %s is not running here (no control socket "
			  "answered)",
		    sid);
	else if (json_is_true(json_object_get(reply, "ok"))) {
		printf("%s %s (signed token)\n",
		    strcmp(json_string_value(json_object_get(tok, "decision")),
			"approve") == 0
			? "approved"
			: "denied",
		    json_string_value(json_object_get(tok, "approval")));
		rc = 0;
	} else
		log_warnx("token refused: %s",
		    json_string_value(json_object_get(reply, "error")));
	json_decref(reply);
	json_decref(req);
	json_decref(tok);
	return rc;
}

static int
decide(int approve, int argc, char **argv)
{
	static const struct option opts[] = { { "expires-in", required_argument,
						  NULL, 'e' },
		{ "host-key", required_argument, NULL, 'H' },
		{ "id", required_argument, NULL, 'i' },
		{ "key", required_argument, NULL, 'k' },
		{ "note", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "reason", required_argument, NULL, 'r' },
		{ "session", required_argument, NULL, 's' },
		{ "sign", no_argument, NULL, 'S' },
		{ "token", required_argument, NULL, 't' },
		{ "unverified", no_argument, NULL, 'U' },
		{ "yes", no_argument, NULL, 'y' }, { NULL, 0, NULL, 0 } };
	struct trusted hosts = { .n = 0 };
	const char *text = NULL, *session = NULL, *key = NULL, *id = NULL;
	const char *out = NULL, *token = NULL;
	struct finding f;
	json_t *req, *reply;
	int ch, yes = 0, sign = 0, unverified = 0, rc = 1;
	long expires_in = 3600;
	char answer[16], why[256], *end;

	while ((ch = getopt_long(argc, argv, "n:r:s:y", opts, NULL)) != -1) {
		switch (ch) {
		case 'e':
			expires_in = strtol(optarg, &end, 10);
			if (*end != '\0' || expires_in < 1 ||
			    expires_in > 30L * 86400) {
				fprintf(stderr,
				    "airlock: --expires-in takes "
				    "seconds, 1..2592000\n");
				return EXIT_USAGE;
			}
			break;
		case 'H':
			if (trusted_load_arg(optarg, "--host-key", &hosts) !=
			    0)
				return EXIT_USAGE;
			break;
		case 'i':
			id = optarg;
			break;
		case 'k':
			key = optarg;
			break;
		case 'n':
		case 'r':
			text = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			session = optarg;
			break;
		case 'S':
			sign = 1;
			break;
		case 't':
			token = optarg;
			break;
		case 'U':
			unverified = 1;
			break;
		case 'y':
			yes = 1;
			break;
		default:
			goto usage;
		}
	}
	if ((hosts.n > 0 || unverified) && !sign)
		goto usage;
	if (token != NULL) {
		if (optind != argc || sign || !approve)
			goto usage;
		return send_token(token);
	}
	if (optind != argc - 1)
		goto usage;
	if (!approve && (text == NULL || text[0] == '\0')) {
		fprintf(stderr, "airlock deny: --reason TEXT is required\n");
		return EXIT_USAGE;
	}
	if (sign) {
		if (key == NULL) {
			fprintf(stderr, "airlock: --sign needs --key FILE\n");
			return EXIT_USAGE;
		}
		if (approve && (hosts.n > 0) == unverified) {
			fprintf(stderr, "airlock approve: --sign needs either "
			    "--host-key KEY (the session host's audit.pub: "
			    "airlock audit key prints it there), to check that "
			    "the request comes from the session as it is, or "
			    "--unverified, to sign its action without that\n");
			return EXIT_USAGE;
		}
		return sign_request(approve, argv[optind], id, key, &hosts,
		    text, expires_in, yes, out);
	}
	if (key != NULL || out != NULL || id != NULL)
		goto usage;
	memset(&f, 0, sizeof(f));
	f.id = argv[optind];
	(void)for_each_session(session, find_one, &f);
	if (f.matches == 0 && f.withdrawn) {
		log_warnx(APPROVAL_WITHDRAWN_MSG, f.id);
		return 1;
	}
	if (f.matches == 0) {
		if (refusals != NULL)
			log_warnx("no pending approval %s that you may decide; "
				  "%zu session%s refused you (see above)",
			    f.id, json_array_size(refusals),
			    json_array_size(refusals) == 1 ? "" : "s");
		else
			log_warnx("no pending approval %s (decided, expired, "
				  "or unknown)",
			    f.id);
		return refusals != NULL ? 1 : EXIT_NOINPUT;
	}
	if (f.matches > 1) {
		log_warnx("approval id %s is ambiguous across sessions: use "
			  "--session",
		    f.id);
		json_decref(f.approval);
		return 1;
	}
	/* A denial is safe whatever it names: only a yes must be bound. */
	if (approve && !approval_bound(f.approval, why, sizeof(why))) {
		log_warnx("approval %s: %s; refusing to decide on it", f.id,
		    why);
		json_decref(f.approval);
		return 1;
	}
	print_approval(f.approval, 1);
	if (approve && !yes) {
		printf("Approve this exact action? [y/N] ");
		fflush(stdout);
		if (fgets(answer, sizeof(answer), stdin) == NULL ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			printf("not approved\n");
			json_decref(f.approval);
			return 1;
		}
	}
	req = json_pack("{s:s, s:O, s:O, s:s?}", "op",
	    approve ? "approve" : "deny", "id",
	    json_object_get(f.approval, "id"), "digest",
	    json_object_get(f.approval, "digest"), approve ? "note" : "reason",
	    text);
	reply = control_call(f.path, req);
	json_decref(req);
	if (reply == NULL)
		log_warnx("the session did not answer");
	else if (json_is_true(json_object_get(reply, "ok"))) {
		printf("%s %s\n", approve ? "approved" : "denied", f.id);
		rc = 0;
	} else
		log_warnx(
		    "%s", json_string_value(json_object_get(reply, "error")));
	json_decref(reply);
	json_decref(f.approval);
	return rc;
usage:
	cli_usage(approve ? "approve" : "deny");
	return EXIT_USAGE;
}

int
cmd_approve(int argc, char **argv)
{
	log_init("airlock approve", 0);
	return decide(1, argc, argv);
}

int
cmd_deny(int argc, char **argv)
{
	log_init("airlock deny", 0);
	return decide(0, argc, argv);
}

static void
collect_one(const char *path, json_t *reply, void *arg)
{
	json_t *all = arg, *p;
	size_t i;

	(void)path;
	json_array_foreach(json_object_get(reply, "pending"), i, p)
	{
		json_array_append(all, p);
	}
}

int
cmd_pending(int argc, char **argv)
{
	static const struct option opts[] = { { "json", no_argument, NULL,
						  'j' },
		{ "session", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' }, { NULL, 0, NULL, 0 } };
	struct listing l = { 0, 0 };
	const char *session = NULL;
	int ch, n, json = 0;
	json_t *all, *out;

	log_init("airlock pending", 0);
	while ((ch = getopt_long(argc, argv, "js:v", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			json = 1;
			break;
		case 's':
			session = optarg;
			break;
		case 'v':
			l.verbose = 1;
			break;
		default:
			cli_usage("pending");
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr,
		    "usage: airlock pending [-v | --json] "
		    "[--session S]\n");
		return EXIT_USAGE;
	}
	if (json) {
		/* ASCII only: safe to show, and what approve --sign reads. */
		all = json_array();
		n = for_each_session(session, collect_one, all);
		out = json_pack("{s:i, s:i, s:o, s:o}", "version", 1,
		    "sessionsReached", n, "pending", all, "refused",
		    refusals != NULL ? json_incref(refusals) : json_array());
		put_json_ascii(out);
		json_decref(out);
		return 0;
	}
	n = for_each_session(session, list_one, &l);
	if (l.count == 0 && refusals != NULL)
		printf("nothing pending that you may see (%d session%s "
		       "reached; %zu refused you, see above)\n",
		    n, n == 1 ? "" : "s", json_array_size(refusals));
	else if (l.count == 0)
		printf("nothing pending (%d session%s reached)\n", n,
		    n == 1 ? "" : "s");
	return 0;
}
