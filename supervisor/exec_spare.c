/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* exec_spare: an audit writer made ahead for the next exec (exec_spare.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <sodium.h>

#include "common/paths.h"
#include "proxy/ipc.h"
#include "supervisor/exec_spare.h"
#include "supervisor/session.h"

/* How long an exec waits for a spare's answer, and a spare for the
 * exec's request, in ms: each is a few microseconds of work. */
#define SPARE_ANSWER_MS 1000

/* The hello on the wire: "uid\0gid\0state\0config\0cwd\0". */
#define HELLO_MAX (3 * PATH_MAX + 64)

/* Leftovers older than this are a dead spare's. */
#define SPARE_STALE_S (2 * EXEC_SPARE_MAX_S)

int
exec_spare_seconds(void)
{
	const char *v = getenv("AIRLOCK_EXEC_SPARE");
	char *end;
	long s;

	if (v == NULL || *v == '\0')
		return EXEC_SPARE_DEFAULT_S;
	errno = 0;
	s = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || s < 0)
		return 0; /* not a number: no spare */
	return s > EXEC_SPARE_MAX_S ? EXEC_SPARE_MAX_S : (int)s;
}

int
spare_hello_self(struct spare_hello *h)
{
	memset(h, 0, sizeof(*h));
	h->uid = getuid();
	h->gid = getgid();
	if (paths_state_dir(h->state, sizeof(h->state)) != 0 ||
	    paths_config_dir(h->config, sizeof(h->config)) != 0 ||
	    getcwd(h->cwd, sizeof(h->cwd)) == NULL)
		return -1;
	return 0;
}

/* The socket's name for this binary in |slot|: exec-HASH-SLOT.sock.
 * 0 or -1. */
static int
spare_name(char *out, size_t outlen, int slot)
{
	static char hex[17];
	unsigned char hash[8];
	char id[256];
	struct stat st;

	if (hex[0] == '\0') {
		if (stat("/proc/self/exe", &st) == -1)
			return -1;
		snprintf(id, sizeof(id), "%s %llu %llu %lld %lld.%09ld",
		    PACKAGE_VERSION, (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		crypto_generichash(hash, sizeof(hash),
		    (const unsigned char *)id, strlen(id), NULL, 0);
		sodium_bin2hex(hex, sizeof(hex), hash, sizeof(hash));
	}
	snprintf(out, outlen, "exec-%s-%d.sock", hex, slot);
	return 0;
}

/*
 * Opens STATE/spare (made 0700 when |create|), and checks that it and
 * STATE are ours and written by no one else.  The fd, or -1.
 */
static int
spare_dir(int create)
{
	char state[PATH_MAX], dir[PATH_MAX + 16];
	struct stat st;
	int fd;

	if (paths_state_dir(state, sizeof(state)) != 0 ||
	    snprintf(dir, sizeof(dir), "%s/spare", state) >= (int)sizeof(dir))
		return -1;
	if (create && mkdir(dir, 0700) == -1 && errno != EEXIST)
		return -1;
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1)
		return -1;
	if (fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & 022) != 0 || stat(state, &st) == -1 ||
	    st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The address of |name| in the directory |dirfd| (through /proc: a state
 * directory's path may be longer than sun_path).  0 or -1. */
static int
spare_addr(struct sockaddr_un *sa, int dirfd, const char *name)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	return snprintf(sa->sun_path, sizeof(sa->sun_path),
		   "/proc/self/fd/%d/%s", dirfd,
		   name) >= (int)sizeof(sa->sun_path)
	    ? -1
	    : 0;
}

/* Waits up to |ms| for |fd| to be readable: 1, or 0 (time up, error). */
static int
wait_readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&pfd, 1, ms);
	while (n == -1 && errno == EINTR);
	return n == 1;
}

static int
send_hello(int s, const struct spare_hello *h)
{
	char buf[HELLO_MAX];
	int n;
	ssize_t w;

	n = snprintf(buf, sizeof(buf), "%lu%c%lu%c%s%c%s%c%s", h->uid, 0,
	    h->gid, 0, h->state, 0, h->config, 0, h->cwd);
	if (n < 0 || n >= (int)sizeof(buf))
		return -1;
	do
		w = send(s, buf, (size_t)n + 1, MSG_NOSIGNAL);
	while (w == -1 && errno == EINTR);
	return w == n + 1 ? 0 : -1;
}

/* Copies the next NUL-terminated field of buf[*off..len) to dst. */
static int
next_field(const char *buf, size_t len, size_t *off, char *dst, size_t dstlen)
{
	const char *p = buf + *off, *nul;
	size_t n;

	if (*off >= len || (nul = memchr(p, '\0', len - *off)) == NULL)
		return -1;
	n = (size_t)(nul - p);
	if (n >= dstlen)
		return -1;
	memcpy(dst, p, n + 1);
	*off += n + 1;
	return 0;
}

static int
recv_hello(int s, struct spare_hello *h)
{
	char buf[HELLO_MAX], num[32], *end;
	size_t off = 0;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (!wait_readable(s, SPARE_ANSWER_MS))
		return -1;
	do
		n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return -1;
	if (next_field(buf, (size_t)n, &off, num, sizeof(num)) != 0 ||
	    num[0] == '\0' || (h->uid = strtoul(num, &end, 10), *end != '\0') ||
	    next_field(buf, (size_t)n, &off, num, sizeof(num)) != 0 ||
	    num[0] == '\0' || (h->gid = strtoul(num, &end, 10), *end != '\0') ||
	    next_field(buf, (size_t)n, &off, h->state, sizeof(h->state)) != 0 ||
	    next_field(buf, (size_t)n, &off, h->config, sizeof(h->config)) !=
		0 ||
	    next_field(buf, (size_t)n, &off, h->cwd, sizeof(h->cwd)) != 0 ||
	    off != (size_t)n)
		return -1;
	return 0;
}

/* The answer: one byte, '1' with the namespace's fd or '0'.  Returns the
 * byte (-1: none), and the fd passed, if any, in *fd. */
static int
recv_answer(int s, int *fd, char *text, size_t textlen)
{
	char buf[1 + EXEC_SPARE_TEXT_MAX];
	size_t len;

	*fd = -1;
	if (text != NULL && textlen > 0)
		text[0] = '\0';
	if (!wait_readable(s, SPARE_ANSWER_MS) ||
	    proxy_recv_fd(s, fd, buf, sizeof(buf) - 1, &len) != 1 || len < 1)
		return -1;
	buf[len] = '\0';
	if (buf[0] != '1' && *fd != -1) {
		close(*fd);
		*fd = -1;
	}
	/* What a taken answer carries after its byte. */
	if (buf[0] == '1' && text != NULL && len - 1 < textlen)
		memcpy(text, buf + 1, len);
	return (unsigned char)buf[0];
}

int
exec_spare_ask(pid_t *pid)
{
	struct spare_hello h;
	struct sockaddr_un sa;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	char name[64];
	int dfd, s = -1, slot;

	if (exec_spare_seconds() == 0 || spare_hello_self(&h) != 0 ||
	    (dfd = spare_dir(0)) == -1)
		return -1;
	for (slot = 0; slot < EXEC_SPARE_SLOTS; slot++) {
		if (spare_name(name, sizeof(name), slot) != 0 ||
		    spare_addr(&sa, dfd, name) != 0 ||
		    (s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) ==
			-1)
			goto fail;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		/* A name no spare listens on any more: a dead one's. */
		if (errno == ECONNREFUSED)
			(void)unlinkat(dfd, name, 0);
		close(s);
		s = -1;
	}
	if (s == -1 ||
	    getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1 ||
	    cred.uid != geteuid() || send_hello(s, &h) != 0)
		goto fail;
	close(dfd);
	*pid = cred.pid;
	return s;
fail:
	if (s != -1)
		close(s);
	close(dfd);
	return -1;
}

int
exec_spare_taken(int s, int *netns_fd, char *text, size_t textlen)
{
	return recv_answer(s, netns_fd, text, textlen) == '1' ? 0 : -1;
}

void
exec_spare_init(struct exec_spare *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->dirfd = sp->lfd = -1;
}

/* 1 if sp->name is still the socket sp->dev, sp->ino. */
static int
still_ours(const struct exec_spare *sp)
{
	struct stat st;

	return sp->dirfd != -1 && sp->ino != 0 &&
	    fstatat(sp->dirfd, sp->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == sp->dev && st.st_ino == sp->ino;
}

/* The held name of this process's socket. */
static int
held_name(char *out, size_t outlen)
{
	char slot[64], *dash;

	if (spare_name(slot, sizeof(slot), 0) != 0 ||
	    (dash = strrchr(slot, '-')) == NULL)
		return -1;
	*dash = '\0';
	return snprintf(out, outlen, "%s-held-%ld.sock", slot,
		   (long)getpid()) >= (int)outlen
	    ? -1
	    : 0;
}

/*
 * Publishes the held socket again under the first free name: 0, or -1
 * (the held name is not ours any more, or every slot is taken: the
 * caller starts over).
 */
static int
republish(struct exec_spare *sp)
{
	char name[64];
	int slot;

	if (!still_ours(sp))
		return -1;
	for (slot = 0; slot < EXEC_SPARE_SLOTS; slot++) {
		if (spare_name(name, sizeof(name), slot) != 0)
			return -1;
		if (renameat2(sp->dirfd, sp->name, sp->dirfd, name,
			RENAME_NOREPLACE) == 0) {
			memcpy(sp->name, name, sizeof(name));
			sp->held = 0;
			return still_ours(sp) ? 0 : -1;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

int
exec_spare_hold(struct exec_spare *sp)
{
	char held[64];

	if (still_ours(sp) && held_name(held, sizeof(held)) == 0 &&
	    renameat(sp->dirfd, sp->name, sp->dirfd, held) == 0) {
		memcpy(sp->name, held, sizeof(held));
		sp->held = 1;
		if (still_ours(sp))
			return 0;
	}
	exec_spare_unpublish(sp);
	return -1;
}

/*
 * Refuses each exec waiting on the listening socket, once it has sent its
 * request (which it does as it connects; 100 ms at most): a refusal is an
 * answer it reads, not a reset.
 */
static void
refuse_waiting(const struct exec_spare *sp)
{
	char buf[HELLO_MAX];
	int c;

	while ((c = accept4(sp->lfd, NULL, NULL, SOCK_CLOEXEC)) != -1 ||
	    errno == EINTR || errno == ECONNABORTED)
		if (c != -1) {
			if (wait_readable(c, 100))
				(void)recv(c, buf, sizeof(buf), MSG_DONTWAIT);
			(void)exec_spare_answer(c, 0, -1, NULL);
			close(c);
		}
}

/* The ms left of |timeout_ms| since |t0| (CLOCK_MONOTONIC). */
static long
ms_left(const struct timespec *t0, int timeout_ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return timeout_ms -
	    ((t.tv_sec - t0->tv_sec) * 1000L +
		(t.tv_nsec - t0->tv_nsec) / 1000000L);
}

int
exec_spare_wait(struct exec_spare *sp, int fd, int timeout_ms)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN } };
	struct timespec t0;
	long left = timeout_ms;
	int n;

	if (sp != NULL && sp->held && sp->lfd != -1)
		pfd[1].fd = sp->lfd;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = poll(pfd, 2, (int)left);
		if (n == -1 && errno != EINTR)
			return 0;
		if (n > 0 && sp != NULL && (pfd[1].revents & POLLIN) != 0)
			refuse_waiting(sp);
		else if (n > 0 && pfd[1].revents != 0)
			pfd[1].fd = -1; /* broken: no more to refuse there */
		if (n > 0 && pfd[0].revents != 0)
			return 1;
		if (timeout_ms >= 0 && (left = ms_left(&t0, timeout_ms)) <= 0)
			return 0;
	}
}

int
exec_spare_listen(struct exec_spare *sp)
{
	struct sockaddr_un sa;
	struct stat st;
	char tmp[96];
	int slot;

	if (sp->held && republish(sp) == 0)
		return 0;
	exec_spare_unpublish(sp);
	if (spare_name(sp->name, sizeof(sp->name), 0) != 0 ||
	    (sp->dirfd = spare_dir(1)) == -1)
		goto fail;
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", sp->name, (long)getpid());
	(void)unlinkat(sp->dirfd, tmp, 0);
	/* Non-blocking: exec_spare_wait() takes whatever is waiting. */
	if (spare_addr(&sa, sp->dirfd, tmp) != 0 ||
	    (sp->lfd = socket(AF_UNIX,
		 SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1 ||
	    bind(sp->lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		goto fail;
	/* Its owner's alone, then published under the first name that no
	 * other spare holds. */
	if (fchmodat(sp->dirfd, tmp, 0600, 0) == -1 || listen(sp->lfd, 8) == -1)
		slot = EXEC_SPARE_SLOTS;
	else
		for (slot = 0; slot < EXEC_SPARE_SLOTS; slot++) {
			(void)spare_name(sp->name, sizeof(sp->name), slot);
			if (linkat(sp->dirfd, tmp, sp->dirfd, sp->name, 0) == 0)
				break;
			if (errno != EEXIST) {
				slot = EXEC_SPARE_SLOTS;
				break;
			}
		}
	(void)unlinkat(sp->dirfd, tmp, 0);
	if (slot == EXEC_SPARE_SLOTS)
		goto fail;
	if (fstatat(sp->dirfd, sp->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		goto fail;
	sp->dev = st.st_dev;
	sp->ino = st.st_ino;
	return 0;
fail:
	sp->ino = 0;
	exec_spare_unpublish(sp);
	return -1;
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/*
 * 1 if the peer on |c|, process |pid|, is in each of our namespaces.  A
 * pidfd pins it (SO_PEERPIDFD; pidfd_open() before Linux 6.5): if it is
 * alive after its namespaces were read, its pid was not reused meanwhile.
 */
static int
same_namespaces(int c, pid_t pid)
{
	static const char *const ns[] = { "mnt", "pid", "net", "user", "uts",
		"ipc", "cgroup" };
	/* Ours, read once: a process does not change its namespaces here. */
	static struct stat ours[sizeof(ns) / sizeof(ns[0])];
	static int have_ours;
	char path[64];
	struct stat theirs;
	socklen_t len = sizeof(int);
	int pidfd = -1, ok = 1;
	size_t i;

	if (pid <= 0)
		return 0;
	for (i = 0; !have_ours && i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		if (stat(path, &ours[i]) == -1)
			return 0;
	}
	have_ours = 1;
	if (getsockopt(c, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == -1 &&
	    (pidfd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return 0;
	for (i = 0; ok && i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(
		    path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, ns[i]);
		ok = stat(path, &theirs) == 0 &&
		    ours[i].st_dev == theirs.st_dev &&
		    ours[i].st_ino == theirs.st_ino;
	}
	if (ok && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == -1)
		ok = 0;
	close(pidfd);
	return ok;
}

int
exec_spare_accept(struct exec_spare *sp, int timeout_ms, struct spare_hello *h)
{
	struct timespec t0;
	struct ucred cred;
	socklen_t clen;
	long left;
	int c;

	if (sp->lfd == -1)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		left = ms_left(&t0, timeout_ms);
		if (left <= 0 || !wait_readable(sp->lfd, (int)left))
			return -1;
		if ((c = accept4(sp->lfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EAGAIN)
				continue;
			return -1;
		}
		/* The request first, then the checks: a refusal is an answer
		 * the exec reads, not a reset. */
		clen = sizeof(cred);
		if (recv_hello(c, h) == 0 &&
		    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 &&
		    cred.uid == geteuid() && cred.gid == getegid() &&
		    same_namespaces(c, cred.pid))
			return c;
		(void)exec_spare_answer(c, 0, -1, NULL);
		close(c);
	}
}

int
exec_spare_answer(int conn, int yes, int netns_fd, const char *text)
{
	char buf[1 + EXEC_SPARE_TEXT_MAX];
	size_t len = 1;

	buf[0] = yes ? '1' : '0';
	if (yes && text != NULL && strlen(text) < EXEC_SPARE_TEXT_MAX) {
		memcpy(buf + 1, text, strlen(text));
		len += strlen(text);
	}
	return proxy_send_fd(conn, yes ? netns_fd : -1, buf, len) == 0 ? 0 : -1;
}

void
exec_spare_unpublish(struct exec_spare *sp)
{
	if (still_ours(sp))
		(void)unlinkat(sp->dirfd, sp->name, 0);
	sp->ino = 0;
	sp->held = 0;
	if (sp->lfd != -1)
		close(sp->lfd);
	if (sp->dirfd != -1)
		close(sp->dirfd);
	sp->lfd = sp->dirfd = -1;
}

/* 1 if |name| is a held name (exec-HASH-held-PID.sock) whose process
 * is gone. */
static int
held_gone(const char *name)
{
	const char *p = strstr(name, "-held-");
	char *end;
	long pid;

	if (strncmp(name, "exec-", 5) != 0 || p == NULL)
		return 0;
	errno = 0;
	pid = strtol(p + 6, &end, 10);
	return errno == 0 && pid > 0 && pid != (long)getpid() &&
	    strcmp(end, ".sock") == 0 && kill((pid_t)pid, 0) == -1 &&
	    errno == ESRCH;
}

void
exec_spare_sweep(const struct exec_spare *sp)
{
	struct dirent *de;
	struct stat st;
	char sub[NAME_MAX + 32];
	time_t now = time(NULL);
	DIR *d;
	int fd;

	if (sp->dirfd == -1 || (fd = dup(sp->dirfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	/* The offset is sp->dirfd's too, which an earlier sweep left at
	 * the end. */
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (held_gone(de->d_name)) {
			(void)unlinkat(fd, de->d_name, 0);
			continue;
		}
		if (de->d_name[0] == '.' ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISDIR(st.st_mode) || now - st.st_mtime < SPARE_STALE_S)
			continue;
		snprintf(sub, sizeof(sub), "%s/" SESSION_SPARE_LOG, de->d_name);
		if (fstatat(fd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (!S_ISREG(st.st_mode) || st.st_size != 0))
			continue; /* a byte of a log is evidence: it stays */
		(void)unlinkat(fd, sub, 0);
		snprintf(sub, sizeof(sub), "%s/artifacts", de->d_name);
		(void)unlinkat(fd, sub, AT_REMOVEDIR);
		(void)unlinkat(fd, de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}
