/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* exec_audit: the audit log of one "airlock exec" (exec_audit.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>

#include <linux/aio_abi.h>

#include "broker/audit.h"
#include "broker/audit_ship.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/util.h"
#include "proxy/ipc.h"
#include "runner/runner.h"
#include "supervisor/exec_audit.h"
#include "supervisor/exec_spare.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"

/*
 * The parent's view of the writer.  The writer, a fork of airlock exec
 * made before it has any thread, owns the session, its log and its key.
 */
struct exec_audit {
	pid_t pid; /* the writer; -1 when none is left to reap */
	int fd; /* our end of the socket; -1 once closed */
	int rc; /* 1 before the writer's answer, 0, or -1 with err */
	int started; /* exec_start handed to the writer */
	char path[PATH_MAX];
	char err[PATH_MAX + 64];
	int niced; /* the writer runs at WRITER_NICE until the gate */
	pid_t writer; /* its pid (a spare's too) */
	int asking; /* a spare was asked: its answer is due */
	int stays; /* the writer said it stays on as a spare */
	int finished; /* exec_end handed to the writer (or tried) */
	int sent; /* ...and the writer has it: its answer is due */
	int end_rc;
	int netns_fd; /* a spare's network namespace, or -1 */
	struct runner_cgroup_ready cg; /* the cgroups it lends */
	int hold_fd; /* for the writer to drop after us (exec_audit_hold) */
	char *start_text; /* exec_start, until the writer is settled */
	json_t *denials; /* exec_audit_denials(), sent with exec_end */
	char *rmdirs[EXEC_RMDIR_MAX]; /* exec_audit_rmdir(), not yet handed */
	size_t nrmdirs;
	int defer; /* the writer outlives us: exec_audit_defers() */
};

static void hand_rmdirs(struct exec_audit *x);
static int exec_audit_defers(void);

/*
 * The writer's niceness until the caller waits for it (root only: only
 * root may raise it back).  Until the gate, the caller and the sandbox's
 * child are the ones on the way to the command, and on a machine with
 * few cores the writer would take a core from them; at the gate the
 * caller has nothing left to do but wait for it.
 */
#define WRITER_NICE 10

/* The sessions one writer serves (each later one made ahead) before it
 * makes way for a new process. */
#define SPARE_SESSIONS 1000

/* Its answers: a status byte, then the log's path or the error. */
#define WRITER_MSG (PATH_MAX + 128)

/* Copies the string |src| to dst[0..dstlen), cut to fit. */
static void
copy_str(char *dst, size_t dstlen, const char *src)
{
	size_t len = strlen(src);

	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/*
 * What the writer has made ready for one session: the session, the
 * records' sinks, the log and session_start's fields, and (for a spare,
 * as root) a fresh network namespace; with what the preparation read,
 * to tell whether it still holds when a spare is adopted.
 */
struct writer_prep {
	struct session sess;
	struct audit *a;
	struct audit_ship *ship;
	json_t *fields;
	int netns_fd;
	char err[PATH_MAX + 64]; /* "": ready */
	struct spare_hello self; /* the preparer's ids and directories */
	struct stat conf_st, key_st; /* audit.conf and the host key */
	int conf_found;
};

/*
 * What a spare keeps from one exec for the next, instead of making it
 * again and taking it down each time: its own empty cgroups, lent to each
 * exec it serves (runner.h, runner_cgroup_ready_make()), and the last
 * sandbox's network namespace, once runner_netns_unused() finds it as it
 * was made.  The namespace is kept only when every cgroup came back
 * empty: no process of that sandbox is left to hold a socket in it.
 */
static struct {
	struct runner_cgroup_ready cg;
	int lent; /* cg is the exec's being served */
	int netns_fd; /* a namespace for the next exec, or -1 */
	ino_t netns_ino; /* the one lent to the exec being served, or 0 */
} keep = { .netns_fd = -1 };

/* Everything kept is taken down: the writer ends. */
static void
keep_release(void)
{
	runner_cgroup_ready_remove(&keep.cg);
	keep.lent = 0;
	if (keep.netns_fd != -1)
		close(keep.netns_fd);
	keep.netns_fd = -1;
}

/* The network namespace for the next sandbox: the one kept, or a new one
 * (as root; else -1). */
static int
keep_netns_take(void)
{
	int fd = keep.netns_fd;

	keep.netns_fd = -1;
	if (fd == -1 && geteuid() == 0)
		fd = runner_netns_new();
	return fd;
}

/* stat() of |path| into |st|; 1 if it exists, 0 if not (zeroed). */
static int
stat_or_zero(const char *path, struct stat *st)
{
	if (stat(path, st) == 0)
		return 1;
	memset(st, 0, sizeof(*st));
	return 0;
}

/*
 * What the writer does before it is handed exec_start: makes the session
 * (under STATE/spare/, out of sight until exec_start: session_create_spare()), loads
 * audit.conf (the records copied to journald or syslog as it says, like
 * airlock run's), makes the session key and the host key's certificate
 * of it, opens the log (audit_prepare_certified()) and gathers
 * session_start's fields but the caller's context
 * (session_start_context()).  Only the records' signature, write and
 * sync are left for when exec_start comes; made |ahead| for a spare,
 * as root, a fresh network namespace too.  0, or -1 with p->err.
 */
static int
writer_prepare(struct writer_prep *p, int ahead)
{
	char hostpub[AUDIT_PUBKEY_HEX_LEN + 1], hostkey[PATH_MAX];
	char confdir[PATH_MAX], conf[PATH_MAX + 16];
	char *err = p->err;
	size_t errlen = sizeof(p->err);

	memset(p, 0, sizeof(*p));
	p->netns_fd = -1;
	if (session_create_spare(&p->sess, err, errlen) != 0)
		return -1;
	if (hostkey_ensure(hostpub, err, errlen) != 0 ||
	    hostkey_path(hostkey, sizeof(hostkey)) != 0) {
		snprintf(err + strlen(err), errlen - strlen(err),
		    " (the audit host key)");
		return -1;
	}
	if (paths_config_dir(confdir, sizeof(confdir)) != 0 ||
	    spare_hello_self(&p->self) != 0) {
		snprintf(err, errlen,
		    "the configuration directory path is too long");
		return -1;
	}
	snprintf(conf, sizeof(conf), "%s/audit.conf", confdir);
	p->conf_found = stat_or_zero(conf, &p->conf_st);
	(void)stat_or_zero(hostkey, &p->key_st);
	if (audit_ship_load(conf, &p->ship, err, errlen) != 0)
		return -1;
	/* Before the log is made: it takes the default sink then. */
	audit_set_default_sink(
	    p->ship != NULL ? audit_ship_record : NULL, p->ship);
	if (audit_prepare_certified(
		p->sess.audit_path, p->sess.id, hostkey, &p->a) != 0) {
		snprintf(err, errlen, "cannot write the audit log %s",
		    p->sess.audit_path);
		return -1;
	}
	if ((p->fields = session_start_fields("exec", NULL, "", NULL)) ==
	    NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (ahead)
		p->netns_fd = keep_netns_take();
	return 0;
}

/*
 * Whether a spare's preparation still holds for the exec that asks for
 * it (|h|): the same ids and directories, and audit.conf and the host key
 * unchanged since (a new configuration or a rotated key: a new writer).
 * 1 if it does, 0 if it does not for this exec alone (another may still
 * take it), -1 if it does not for anyone.
 */
static int
writer_prep_holds(const struct writer_prep *p, const struct spare_hello *h)
{
	char hostkey[PATH_MAX], conf[PATH_MAX + 16];
	struct stat st;

	if (h->uid != p->self.uid || h->gid != p->self.gid ||
	    strcmp(h->state, p->self.state) != 0 ||
	    strcmp(h->config, p->self.config) != 0)
		return 0;
	snprintf(conf, sizeof(conf), "%s/audit.conf", p->self.config);
	if (stat_or_zero(conf, &st) != p->conf_found ||
	    (p->conf_found && !stat_unchanged(&st, &p->conf_st)) ||
	    hostkey_path(hostkey, sizeof(hostkey)) != 0 ||
	    !stat_or_zero(hostkey, &st) || !stat_unchanged(&st, &p->key_st))
		return -1;
	return 1;
}

/* Frees what writer_prepare() made but the session and its log. */
static void
writer_release(struct writer_prep *p)
{
	json_decref(p->fields);
	p->fields = NULL;
	audit_set_default_sink(NULL, NULL);
	audit_ship_free(p->ship);
	p->ship = NULL;
	if (p->netns_fd != -1)
		close(p->netns_fd);
	p->netns_fd = -1;
}

/* Removes the session writer_prepare() made (it never got a log), and
 * its log, when that is still empty; frees the rest. */
static void
writer_unmake(struct writer_prep *p)
{
	audit_abandon(p->a);
	p->a = NULL;
	if (p->sess.dir[0] != '\0')
		(void)rmdir(p->sess.dir);
	writer_release(p);
}

/* Sends all of buf[0..len) as one message; 0 or -1. */
static int
send_msg(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = send(fd, buf, len, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* Receives one message into buf[0..len - 1), NUL-terminated; its length,
 * or -1 (0 is the peer gone: every message has a byte at least). */
static ssize_t
recv_msg(int fd, char *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(fd, buf, len - 1, 0);
	while (n == -1 && errno == EINTR);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/*
 * The start and end messages, which may be larger than one datagram (the
 * command's argv, a change set's refusals): its length as a message of
 * its own, with descriptor |pass| attached (-1: none; the caller keeps
 * it), then the text in messages of at most BLOB_CHUNK bytes.
 */
#define BLOB_CHUNK 65536

static int
send_blob(int fd, const char *text, size_t len, int pass)
{
	uint64_t n = len;
	size_t off, part;

	if (proxy_send_fd(fd, pass, &n, sizeof(n)) != 0)
		return -1;
	for (off = 0; off < len; off += part) {
		part = len - off < BLOB_CHUNK ? len - off : BLOB_CHUNK;
		if (send_msg(fd, text + off, part) != 0)
			return -1;
	}
	return 0;
}

/* The text send_blob() sent, NUL-terminated (free it), or NULL: the peer
 * is gone or broke the framing.  *|passed| is the descriptor it attached
 * (the caller owns it) or -1; |passed| NULL: none is taken. */
static char *
recv_blob(int fd, int *passed)
{
	uint64_t n;
	size_t off, got0;
	ssize_t got;
	char *buf;
	int pfd;

	if (proxy_recv_fd(fd, &pfd, &n, sizeof(n), &got0) != 1)
		return NULL;
	if (passed != NULL)
		*passed = pfd;
	else if (pfd != -1)
		close(pfd);
	if (got0 != sizeof(n) || n >= SIZE_MAX ||
	    (buf = malloc((size_t)n + 1)) == NULL)
		return NULL;
	for (off = 0; off < n; off += (size_t)got) {
		do
			got = recv(fd, buf + off, (size_t)n - off, 0);
		while (got == -1 && errno == EINTR);
		if (got <= 0) {
			free(buf);
			return NULL;
		}
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Lets the exec just answered run first.  A message on a unix socket
 * wakes its reader on the sender's CPU (the kernel expects the sender to
 * sleep next); the writer goes on working instead, and on a machine
 * with few cores the exec, on its way to the command or to its exit
 * status, would wait behind it.
 */
static void
make_way(void)
{
	(void)sched_yield();
}

/* Descriptors kept after exec_end (exec_audit_hand(), exec_audit_rmdir()),
 * at most. */
#define HANDED_MAX 8

/* A cgroup to remove, as the exec hands it: "r", its inode number, '/'
 * and its name in the directory sent with it. */
#define RMDIR_MSG (NAME_MAX + 32)

/*
 * Marks in back[] each of keep.cg's cgroups among those the exec handed
 * back (names[i], inode inos[i]) that may serve another
 * exec, and takes it off the list to remove (names[i] = "").
 */
static void
keep_back(char (*names)[NAME_MAX + 1], const ino_t *inos, size_t n, int *back)
{
	size_t i, j;

	for (i = 0; keep.lent && i < n; i++)
		for (j = 0; j < keep.cg.n; j++) {
			if (inos[i] == 0 || inos[i] != keep.cg.ino[j] ||
			    strcmp(names[i],
				strrchr(keep.cg.path[j], '/') + 1) != 0)
				continue;
			back[j] = runner_cgroup_ready_reusable(
			    keep.cg.path[j], keep.cg.ino[j]);
			if (back[j])
				names[i][0] = '\0';
		}
}

/* 1 if |fd| is the network namespace lent to the exec and it is kept for
 * the next (every cgroup came back: back[], and it is unused). */
static int
keep_netns_back(int fd, const int *back)
{
	struct stat st;
	size_t j;

	if (!keep.lent || keep.netns_ino == 0 || keep.netns_fd != -1 ||
	    keep.cg.n == 0 || fstat(fd, &st) != 0 ||
	    st.st_ino != keep.netns_ino)
		return 0;
	for (j = 0; j < keep.cg.n; j++)
		if (!back[j])
			return 0;
	if (!runner_netns_unused(fd))
		return 0;
	keep.netns_fd = fd;
	return 1;
}

/* If one of keep.cg's cgroups did not come back fit for another exec, all
 * are removed (one still in use: left to the stale collector) and the
 * spare makes new ones. */
static void
keep_settle(const int *back)
{
	size_t j;

	if (!keep.lent)
		return;
	keep.lent = 0;
	keep.netns_ino = 0;
	for (j = 0; j < keep.cg.n; j++)
		if (!back[j]) {
			runner_cgroup_ready_remove(&keep.cg);
			return;
		}
}

/*
 * What the exec handed over with exec_end (exec_audit_hold(): the
 * sandbox's mount namespace) and after it (exec_audit_hand(): the upper
 * layer's tmpfs) is dropped once the exec has let go of the connection,
 * which it does as it exits: taking the namespace and the tmpfs down is
 * then off the way to its exit status.  Descriptors past HANDED_MAX are
 * closed as they come; 10 s at most.
 */
static void
drop_after_exec(struct exec_spare *sp, int fd, int held)
{
	char buf[RMDIR_MSG], names[HANDED_MAX][NAME_MAX + 1], *name;
	int handed[HANDED_MAX], extra, back[RUNNER_CGROUP_READY_MAX] = { 0 };
	ino_t inos[HANDED_MAX];
	size_t len, n = 0;

	while (exec_spare_wait(sp, fd, 10000) == 1 &&
	    proxy_recv_fd(fd, &extra, buf, sizeof(buf) - 1, &len) == 1) {
		if (extra == -1)
			continue;
		if (n == HANDED_MAX) {
			close(extra);
			continue;
		}
		/* "h", or "r", the inode, '/' and the name of a cgroup to
		 * remove in it (one whose inode is not given: none). */
		buf[len] = '\0';
		inos[n] =
		    buf[0] == 'r' ? (ino_t)strtoull(buf + 1, &name, 10) : 0;
		copy_str(names[n], sizeof(names[n]),
		    inos[n] != 0 && *name == '/' ? name + 1 : "");
		handed[n++] = extra;
	}
	if (held != -1)
		close(held);
	/* Our own cgroups are kept for the next exec while they pass, the
	 * rest removed; then the network namespace, kept if every one of
	 * ours came back (no process of the sandbox is left). */
	keep_back(names, inos, n, back);
	while (n > 0) {
		n--;
		if (keep_netns_back(handed[n], back))
			continue;
		if (names[n][0] != '\0' && strchr(names[n], '/') == NULL &&
		    strcmp(names[n], "..") != 0 && strcmp(names[n], ".") != 0)
			runner_cgroup_rmdir(handed[n], names[n], inos[n]);
		close(handed[n]);
	}
	keep_settle(back);
}

/*
 * Takes EXEC_DENIALS_KEY out of exec_end's fields |end| and writes each
 * of its objects (at most EXEC_DENIALS_MAX) as a sandbox_denial record,
 * in the batch exec_end closes.  0, or -1 if one could not be written.
 */
static int
write_denials(struct audit *a, json_t *end)
{
	json_t *list = json_incref(json_object_get(end, EXEC_DENIALS_KEY)), *d;
	size_t i;
	int rc = 0;

	if (list == NULL)
		return 0;
	(void)json_object_del(end, EXEC_DENIALS_KEY);
	json_array_foreach(list, i, d)
	{
		if (i == EXEC_DENIALS_MAX)
			break;
		if (json_is_object(d) &&
		    audit_append(a, "sandbox_denial", d) != 0)
			rc = -1;
	}
	json_decref(list);
	return rc;
}

/*
 * The writer's AIO context, made on first use (0: none yet), for
 * sync_start(); the kernel frees it as the writer exits.
 */
static aio_context_t sync_ctx;

/*
 * Starts the sync (fdatasync) of the log |fd| on the kernel's own
 * workqueue (AIO's IOCB_CMD_FDSYNC) and returns at once: once submitted
 * it runs to its end whatever becomes of the writer (killed after its
 * answer, the kernel still syncs; the writer's exit waits for it), so
 * the answer, which lets the exit status leave, never goes before a
 * sync that will be done.  0, or -1: not started (no AIO here).
 */
static int
sync_start(int fd)
{
	struct iocb cb, *cbs[1] = { &cb };

	if (fd == -1 ||
	    (sync_ctx == 0 && syscall(SYS_io_setup, 1, &sync_ctx) == -1)) {
		sync_ctx = 0;
		return -1;
	}
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_FDSYNC;
	cb.aio_fildes = (uint32_t)fd;
	return syscall(SYS_io_submit, sync_ctx, 1, cbs) == 1 ? 0 : -1;
}

/* Waits for the sync sync_start() started: 0, or -1 if it failed. */
static int
sync_wait(void)
{
	struct io_event ev;
	long n;

	while (
	    (n = syscall(SYS_io_getevents, sync_ctx, 1, 1, &ev, NULL)) == -1 &&
	    errno == EINTR)
		;
	return n == 1 && ev.res == 0 ? 0 : -1;
}

/*
 * One session: waits for exec_start, moves the session from
 * STATE/spare/ to STATE/sessions/ and writes the record, then (told by
 * the exec, or because the exec is gone) exec_end and session_end.  |p|
 * is ready or holds the error to answer with.  Returns 1 if the run was
 * called off before exec_start and |p| is still ready for another (the
 * session was never in sight), else 0: |p| is used up; -1 when the end
 * records, written and answered, could not be synced after (the disk
 * failed: the writer must not stay on).  The last answer says whether
 * the writer will |stay| on as a spare (its exec then does not wait for
 * it to exit).
 */
static int
writer_serve(struct exec_spare *sp, int fd, struct writer_prep *p, int stay)
{
	char msg[WRITER_MSG], *err = p->err;
	size_t errlen = sizeof(p->err);
	json_t *given, *end;
	char *text;
	int ok = err[0] == '\0', held = -1, later, lost = 0;

	/* {"context": session_start_context(), "start": exec_start's}. */
	if (!exec_spare_wait(sp, fd, -1) ||
	    (text = recv_blob(fd, NULL)) == NULL) {
		if (ok)
			return 1;
		writer_unmake(p);
		return 0;
	}
	given = json_loads(text, 0, NULL);
	free(text);
	if (ok &&
	    (!json_is_object(json_object_get(given, "start")) ||
		json_object_update(
		    p->fields, json_object_get(given, "context")) != 0)) {
		snprintf(err, errlen,
		    "the audit log's writer: a bad "
		    "start message");
		ok = 0;
	}
	/* In sight only now that it has a record. */
	if (ok &&
	    (session_publish(&p->sess, err, errlen) != 0 ||
		audit_moved(p->a, p->sess.audit_path) != 0)) {
		if (err[0] == '\0')
			snprintf(err, errlen, "out of memory");
		ok = 0;
	}
	/* session_start and exec_start: one write, one sync. */
	if (ok &&
	    audit_begin_first(p->a, p->fields, "exec_start",
		json_object_get(given, "start")) != 0) {
		snprintf(err, errlen, "cannot write the audit log %s",
		    p->sess.audit_path);
		ok = 0;
	}
	json_decref(given);
	msg[0] = ok ? '0' : '1';
	copy_str(msg + 1, sizeof(msg) - 1, ok ? p->sess.audit_path : err);
	(void)send_msg(fd, msg, strlen(msg) + 1);
	if (!ok) {
		/* No log: nothing more to write, and no session to keep (a
		 * log file a failed write left keeps its directory). */
		writer_unmake(p);
		return 0;
	}
	/* exec_end's fields as JSON text, or nothing: the exec is gone
	 * (then the send above failed too, or this recv sees the end). */
	if (exec_spare_wait(sp, fd, -1) &&
	    (text = recv_blob(fd, &held)) != NULL) {
		end = json_loads(text, JSON_DECODE_ANY, NULL);
		free(text);
	} else
		end = json_pack("{s:b}", "supervisorLost", 1);
	/*
	 * Written with session_end: one write, one signature.  Synced before
	 * the answer with "sync exec-end" in audit.conf; else right after
	 * it, off the way to the exit status, which (like a broker's reply)
	 * leaves once the record that decides it is written, signed and
	 * chained (docs/AUDIT.md).
	 */
	later = !audit_ship_sync_exec_end(p->ship);
	if (later)
		audit_set_sync(p->a, AUDIT_SYNC_NONE);
	audit_batch(p->a, 1);
	ok = write_denials(p->a, end) == 0;
	if (audit_append(p->a, "exec_end", json_is_object(end) ? end : NULL) !=
	    0)
		ok = 0;
	json_decref(end);
	ok = audit_end(p->a) == 0 && ok;
	/* The sync is started before the answer, done even if we are
	 * killed after it; where it cannot be, it is done before. */
	if (ok && later && sync_start(audit_sync_fd(p->a)) != 0) {
		later = 0;
		if (audit_sync(p->a) != 0) {
			ok = 0;
			lost = 1;
		}
	}
	/* Written: the exit status may leave.  What comes after (the wait
	 * for the sync, the freeing, the mount namespace, the next session)
	 * yields to the exec, which is on its way out (root only, as at the
	 * start). */
	if (geteuid() == 0)
		(void)setpriority(PRIO_PROCESS, 0, WRITER_NICE);
	(void)send_msg(
	    fd, ok ? (stay ? "0S" : "0") : (stay ? "1S" : "1"), stay ? 2 : 1);
	make_way();
	if (ok && later && sync_wait() != 0) {
		/* Our stderr is /dev/null (writer_main()), the exec gone. */
		syslog(LOG_DAEMON | LOG_ERR,
		    "airlock exec: the audit log %s: exec_end and "
		    "session_end were written but could not be synced "
		    "to the disk: %m",
		    p->sess.audit_path);
		lost = 1;
	}
	audit_close(p->a);
	p->a = NULL;
	writer_release(p);
	drop_after_exec(sp, fd, held);
	return lost ? -1 : 0;
}

/*
 * Makes the next session ahead (unless |p| is still |ready|: a run called
 * off) and waits on |sp| for an exec to adopt it (exec_spare.h).  Returns
 * the exec's connection with |p| ready for it (its network namespace
 * handed over) and |sp| held, or -1: the time is up, or no spare could be
 * made (|sp| unpublished).
 */
static int
writer_spare(
    struct exec_spare *sp, struct writer_prep *p, int ready, int seconds)
{
	static char cgtext[EXEC_SPARE_TEXT_MAX];
	struct spare_hello h;
	struct stat st;
	int c, holds;

	if (geteuid() == 0)
		(void)setpriority(PRIO_PROCESS, 0, WRITER_NICE);
	if (!ready && writer_prepare(p, 1) != 0) {
		writer_unmake(p);
		return -1;
	}
	if (p->netns_fd == -1)
		p->netns_fd = keep_netns_take();
	if (keep.cg.n == 0)
		(void)runner_cgroup_ready_make(&keep.cg);
	if (runner_cgroup_ready_text(&keep.cg, cgtext, sizeof(cgtext)) != 0)
		runner_cgroup_ready_remove(&keep.cg);
	/* It stays niced while it waits: the exec that adopts it raises
	 * it at its gate, as a forked writer's (exec_audit_ready()). */
	if (exec_spare_listen(sp) != 0) {
		writer_unmake(p);
		return -1;
	}
	exec_spare_sweep(sp);
	while ((c = exec_spare_accept(sp, seconds * 1000, &h)) != -1) {
		holds = writer_prep_holds(p, &h);
		if (holds == 1) {
			/* Out of sight before anything else can come (or
			 * off the socket, if its name cannot be moved). */
			(void)exec_spare_hold(sp);
			if (json_object_set_new(
				p->fields, "cwd", json_string(h.cwd)) != 0) {
				(void)exec_spare_answer(c, 0, -1, NULL);
				close(c);
				break;
			}
			if (exec_spare_answer(c, 1, p->netns_fd, cgtext) != 0) {
				/* That exec is gone: still ready for the
				 * next. */
				close(c);
				if (exec_spare_listen(sp) != 0)
					break;
				continue;
			}
			keep.lent = 1;
			keep.netns_ino =
			    p->netns_fd != -1 && fstat(p->netns_fd, &st) == 0
			    ? st.st_ino
			    : 0;
			if (p->netns_fd != -1)
				close(p->netns_fd);
			p->netns_fd = -1;
			make_way();
			return c;
		}
		(void)exec_spare_answer(c, 0, -1, NULL);
		close(c);
		if (holds == -1)
			break;
	}
	exec_spare_unpublish(sp);
	writer_unmake(p);
	return -1;
}

/*
 * 1 if a child of ours starts traced: PTRACE_TRACEME fails (EPERM) for a
 * process traced already, as a tracer that follows forks (strace -f)
 * traces each child from its birth; else the child is ours to trace,
 * and goes at once.  1 too if it cannot tell.
 */
static int
child_born_traced(void)
{
	pid_t pid;
	int status;

	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0)
		_exit(ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1 ? 1 : 0);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return 1;
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

/*
 * 1 if a tracer follows this process (or it cannot tell).  TracerPid
 * names it as our /proc's pid namespace sees it: 0 for a tracer outside
 * that namespace ("strace -f nsenter -p ... airlock exec", a container's
 * process traced from the host).  Outside the initial pid namespace a 0
 * is checked again by a child's PTRACE_TRACEME (child_born_traced()).
 */
static int
being_traced(void)
{
	char line[256];
	FILE *f;
	int traced = 1;

	if ((f = fopen("/proc/self/status", "re")) == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "TracerPid:", 10) == 0) {
			traced = strtol(line + 10, NULL, 10) != 0;
			break;
		}
	fclose(f);
	if (!traced && !exec_audit_defers())
		traced = child_born_traced();
	return traced;
}

/*
 * The writer: serves the session it prepared, then, while
 * AIRLOCK_EXEC_SPARE allows, each next one made ahead (writer_spare()),
 * then exits.  Terminal signals are the exec's to act on: the log is
 * closed whatever happens to the command.
 */
static void __attribute__((noreturn)) writer_main(int fd)
{
	struct writer_prep p;
	struct exec_spare sp;
	int seconds = exec_spare_seconds(), served, null, ready;

	/* Yields to the caller, which fork() may just have preempted. */
	if (geteuid() == 0)
		(void)setpriority(PRIO_PROCESS, 0, WRITER_NICE);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* Not the exec's command line in ps(1): it may outlive the exec. */
	proc_args_set("airlock-audit-writer");
	(void)prctl(PR_SET_NAME, "airlock-writer");
	/* Nothing of the exec's stays open here: a pipe the exec's caller
	 * reads to its end must not wait for a spare. */
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(null, 0);
		(void)dup2(null, 1);
		(void)dup2(null, 2);
		if (null > 2)
			close(null);
	}
	(void)close_fds_from(3, &fd, 1);
	if (writer_prepare(&p, 0) != 0 && p.err[0] == '\0')
		snprintf(p.err, sizeof(p.err), "the audit log's writer failed");
	/* Not under a tracer (strace -f waits for every process it
	 * follows: it would wait for the spare's time). */
	if (seconds > 0 && being_traced())
		seconds = 0;
	exec_spare_init(&sp);
	for (served = 0;; served++) {
		ready = writer_serve(
		    &sp, fd, &p, seconds > 0 && served + 1 < SPARE_SESSIONS);
		close(fd);
		/* A disk that failed a sync: the next exec forks a writer
		 * of its own, whose exec_start must be synced first. */
		if (ready == -1) {
			ready = 0;
			seconds = 0;
		}
		if (served == 0) {
			/* Out of the exec's session and directory. */
			(void)setsid();
			if (chdir("/") == -1)
				seconds = 0;
		}
		if (seconds == 0 || served + 1 >= SPARE_SESSIONS)
			break;
		if ((fd = writer_spare(&sp, &p, ready, seconds)) == -1) {
			keep_release();
			_exit(0);
		}
	}
	exec_spare_unpublish(&sp);
	if (ready)
		writer_unmake(&p);
	keep_release();
	_exit(0);
}

/* Forks the writer, which starts making the session: 0, or -1 with
 * x->err (no writer). */
static int
writer_fork(struct exec_audit *x)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(x->err, sizeof(x->err), "the audit log's writer: %s",
		    strerror(errno));
		return -1;
	}
	/* The caller has no other thread yet (exec_audit.h). */
	if ((x->pid = fork()) == -1) {
		snprintf(x->err, sizeof(x->err),
		    "the audit log's writer: "
		    "fork: %s",
		    strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (x->pid == 0) {
		close(sv[0]);
		writer_main(sv[1]);
	}
	close(sv[1]);
	x->fd = sv[0];
	x->writer = x->pid;
	x->niced = geteuid() == 0;
	return 0;
}

/* The initial pid namespace's /proc/self/ns/pid inode (the kernel's
 * PROC_PID_INIT_INO). */
#define PID_NS_INIT_INO 0xEFFFFFFCU

/*
 * 1 if the writer will outlive this process for the work it does after
 * exec_end (the sync, the cgroups): this process is in the initial pid
 * namespace, whose init does not end.  In another one (a container, an
 * "unshare -pf") the namespace's init may end with airlock exec (airlock
 * exec its init, or its init's command), and the kernel then kills every
 * process left in it, the writer with its sync and rmdirs to do.
 */
static int
exec_audit_defers(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 &&
	    st.st_ino == PID_NS_INIT_INO;
}

struct exec_audit *
exec_audit_begin(void)
{
	struct exec_audit *x;

	x = xcalloc(1, sizeof(*x));
	x->defer = exec_audit_defers();
	x->pid = -1;
	x->fd = -1;
	x->netns_fd = -1;
	x->hold_fd = -1;
	x->rc = 1;
	/* A writer made ahead by an earlier exec's (exec_spare.h)?  Its
	 * answer is read by exec_audit_settle(). */
	if ((x->fd = exec_spare_ask(&x->writer)) != -1) {
		x->asking = 1;
		return x;
	}
	if (writer_fork(x) != 0)
		x->rc = -1;
	return x;
}

/* Hands the writer exec_start's message, if it waits for the writer. */
static void
send_start(struct exec_audit *x)
{
	if (x->start_text == NULL)
		return;
	if (x->rc == 1 &&
	    send_blob(x->fd, x->start_text, strlen(x->start_text), -1) != 0) {
		x->rc = -1;
		snprintf(x->err, sizeof(x->err),
		    "the audit log's writer: it was lost");
	}
	free(x->start_text);
	x->start_text = NULL;
}

void
exec_audit_settle(struct exec_audit *x)
{
	char cgtext[EXEC_SPARE_TEXT_MAX];

	if (x->asking) {
		x->asking = 0;
		if (exec_spare_taken(
			x->fd, &x->netns_fd, cgtext, sizeof(cgtext)) == 0) {
			/* None, if they do not parse. */
			(void)runner_cgroup_ready_parse(cgtext, &x->cg);
			x->niced = geteuid() == 0;
			/* It has exec_start already, if it was given. */
			free(x->start_text);
			x->start_text = NULL;
		} else {
			/* Refused, or no answer: a writer of our own after
			 * all. */
			close(x->fd);
			x->fd = -1;
			x->writer = -1;
			if (writer_fork(x) != 0)
				x->rc = -1;
		}
	}
	send_start(x);
}

void
exec_audit_start(struct exec_audit *x, json_t *start, const struct manifest *m,
    const char *workspace)
{
	json_t *msg;
	char *text;

	if (x->started)
		return;
	x->started = 1;
	if (x->rc != 1)
		return;
	msg = json_pack("{s:o, s:O}", "context",
	    session_start_context(m, workspace), "start", start);
	text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (text == NULL) {
		x->rc = -1;
		snprintf(x->err, sizeof(x->err),
		    "the audit log's writer: out of memory");
		return;
	}
	/*
	 * At once, to a spare too before its answer is read (it reads it
	 * after answering; one that refuses drops it): the record is then
	 * on the disk the sooner.  Kept until the spare has answered, for
	 * a writer of our own if it refuses.
	 */
	x->start_text = text;
	if (!x->asking)
		send_start(x);
	else
		(void)send_blob(x->fd, text, strlen(text), -1);
}

/* Closes our end (an adopted spare is not our child: pid -1). */
static void
writer_done(struct exec_audit *x)
{
	/* The network namespace made ahead, the sandbox's: taken down
	 * when the writer drops it, after us (exec_audit_hand()). */
	exec_audit_hand(x, x->netns_fd);
	x->netns_fd = -1;
	hand_rmdirs(x);
	if (x->fd != -1)
		close(x->fd);
	x->fd = -1;
	if (x->hold_fd != -1)
		close(x->hold_fd);
	x->hold_fd = -1;
	free(x->start_text);
	x->start_text = NULL;
	json_decref(x->denials);
	x->denials = NULL;
	/* Our own writer is reaped, unless it stays on as a spare (it said
	 * so, or, with no end record, spares are on): then it outlives us,
	 * and init reaps it when its time is up. */
	if (x->pid != -1 && !x->stays && (x->sent || exec_spare_seconds() == 0))
		while (waitpid(x->pid, NULL, 0) == -1 && errno == EINTR)
			;
	else if (x->pid != -1)
		(void)waitpid(x->pid, NULL, WNOHANG);
	x->pid = -1;
}

int
exec_audit_ready(struct exec_audit *x, char *err, size_t errlen)
{
	char msg[WRITER_MSG];
	ssize_t n;

	if (!x->started && x->rc == 1) {
		x->rc = -1;
		copy_str(x->err, sizeof(x->err), "no exec_start was given");
	}
	if (x->rc == 1)
		exec_audit_settle(x);
	if (x->rc == 1) {
		/* Now the command waits for it alone. */
		if (x->niced)
			(void)setpriority(PRIO_PROCESS, x->writer, 0);
		x->niced = 0;
		n = recv_msg(x->fd, msg, sizeof(msg));
		if (n > 1 && msg[0] == '0') {
			copy_str(x->path, sizeof(x->path), msg + 1);
			x->rc = 0;
		} else {
			x->rc = -1;
			/* Cannot tell whether the record was written. */
			copy_str(x->err, sizeof(x->err),
			    n > 1 ? msg + 1
				  : "the audit log's writer was lost");
		}
	}
	if (x->rc != 0) {
		writer_done(x);
		snprintf(err, errlen, "%s", x->err);
	}
	return x->rc;
}

int
exec_audit_netns(const struct exec_audit *x)
{
	return x != NULL ? x->netns_fd : -1;
}

const struct runner_cgroup_ready *
exec_audit_cgroups(const struct exec_audit *x)
{
	return x != NULL && x->cg.n > 0 ? &x->cg : NULL;
}

const char *
exec_audit_path(const struct exec_audit *x)
{
	return x->rc == 0 ? x->path : "";
}

int
exec_audit_gate(void *arg, char *err, size_t errlen)
{
	return exec_audit_ready(arg, err, errlen);
}

int
exec_audit_finish(struct exec_audit *x, json_t *end)
{
	char err[8], *text;
	int rc;

	if (x->finished)
		return x->end_rc;
	x->finished = 1;
	if (exec_audit_ready(x, err, sizeof(err)) != 0)
		return x->end_rc;
	/* The denials ride with exec_end, under a key the writer takes
	 * out (write_denials()). */
	if (end != NULL && x->denials != NULL) {
		end = json_deep_copy(end);
		if (end == NULL ||
		    json_object_set(end, EXEC_DENIALS_KEY, x->denials) != 0)
			fatalx("out of memory");
	} else
		json_incref(end);
	/* A blob: a change set's refusals or the proxy's can be larger
	 * than a datagram the writer reads whole. */
	text = end != NULL ? json_dumps(end, JSON_COMPACT) : NULL;
	json_decref(end);
	rc = text != NULL ? send_blob(x->fd, text, strlen(text), x->hold_fd)
			  : send_blob(x->fd, "null", 4, x->hold_fd);
	free(text);
	if (x->hold_fd != -1)
		close(x->hold_fd);
	x->hold_fd = -1;
	if (rc != 0)
		x->end_rc = -1;
	else {
		x->sent = 1;
		/* It was woken on this CPU: it gets it until it waits on
		 * the disk, rather than after the teardown below. */
		make_way();
		hand_rmdirs(x);
	}
	/* Its answer is awaited by exec_audit_end(): the write and the
	 * sync overlap the sandbox's teardown. */
	return x->end_rc;
}

/*
 * Hands the cgroups queued by exec_audit_rmdir() to the writer (|x->sent|):
 * the parent directory of each, with its name and its inode (the writer
 * removes that directory, not another that has its name by then).  Those
 * it cannot take are removed here and now.
 */
static void
hand_rmdirs(struct exec_audit *x)
{
	char msg[RMDIR_MSG], *slash;
	struct stat st;
	int dfd;

	while (x->nrmdirs > 0) {
		char *path = x->rmdirs[--x->nrmdirs];

		dfd = -1;
		if ((slash = strrchr(path, '/')) != NULL && slash != path &&
		    strlen(slash + 1) <= NAME_MAX && x->sent && x->fd != -1) {
			*slash = '\0';
			dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
			*slash = '/';
		}
		if (dfd != -1 &&
		    (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
			st.st_ino == 0)) {
			close(dfd);
			dfd = -1;
		}
		if (dfd != -1)
			snprintf(msg, sizeof(msg), "r%llu/%s",
			    (unsigned long long)st.st_ino, slash + 1);
		if (dfd == -1 ||
		    proxy_send_fd(x->fd, dfd, msg, strlen(msg)) != 0)
			runner_cgroup_rmdir(AT_FDCWD, path, 0);
		if (dfd != -1)
			close(dfd);
		free(path);
	}
}

/* fdatasync(2) of the log at |path| (the writer's file: the records it
 * wrote reach the disk through any descriptor of it).  0 or -1. */
static int
log_sync(const char *path)
{
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = fdatasync(fd);
	close(fd);
	return rc;
}

void
exec_audit_rmdir(void *arg, const char *path)
{
	struct exec_audit *x = arg;
	char *copy;

	if (x == NULL || !x->defer || x->nrmdirs == EXEC_RMDIR_MAX ||
	    (copy = strdup(path)) == NULL) {
		runner_cgroup_rmdir(AT_FDCWD, path, 0);
		return;
	}
	x->rmdirs[x->nrmdirs++] = copy;
	if (x->sent)
		hand_rmdirs(x);
}

int
exec_audit_denials(struct exec_audit *x, json_t *list)
{
	if (x == NULL || list == NULL)
		return 0;
	if (x->finished)
		return -1;
	json_decref(x->denials);
	x->denials = json_incref(list);
	return 0;
}

void
exec_audit_hand(struct exec_audit *x, int fd)
{
	if (fd == -1)
		return;
	if (x != NULL && x->sent && x->fd != -1)
		(void)proxy_send_fd(x->fd, fd, "h", 1);
	close(fd);
}

void
exec_audit_hold(struct exec_audit *x, int fd)
{
	if (fd == -1)
		return;
	if (x == NULL || x->finished || x->hold_fd != -1) {
		close(fd);
		return;
	}
	x->hold_fd = fd;
}

void
exec_audit_on_status(void *arg, int wait_status)
{
	json_t *end;

	if (WIFEXITED(wait_status))
		end = json_pack("{s:i}", "exitCode", WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		end = json_pack("{s:i}", "signal", WTERMSIG(wait_status));
	else
		return;
	if (end != NULL)
		(void)exec_audit_finish(arg, end);
	json_decref(end);
}

int
exec_audit_end(struct exec_audit *x, json_t *end)
{
	char reply[8];
	int rc;

	if (x == NULL)
		return 0;
	(void)exec_audit_finish(x, end);
	/* "0" (written) or "1", and "S" when the writer stays as a spare. */
	if (x->sent &&
	    (recv_msg(x->fd, reply, sizeof(reply)) < 1 || reply[0] != '0'))
		x->end_rc = -1;
	/* Written: on the disk too before we exit, if the writer may not
	 * outlive us to sync them (exec_audit_defers()). */
	if (x->sent && x->end_rc == 0 && !x->defer && log_sync(x->path) != 0)
		x->end_rc = -1;
	x->stays = x->sent && reply[0] != '\0' && reply[1] == 'S';
	rc = x->end_rc;
	writer_done(x);
	free(x);
	return rc;
}
