/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * exec_spare: an audit writer made ahead for the next "airlock exec".
 *
 * When the writer of an exec's audit log (exec_audit.h) has closed that
 * log, it makes the next session ahead (its directory under STATE/spare/,
 * the session key certified by the host key, the log opened, and as root
 * a fresh network namespace) and waits, for AIRLOCK_EXEC_SPARE seconds
 * (default 30, 0: never), on a socket beside it,
 * STATE/spare/exec-HASH-SLOT.sock.  HASH names the airlock binary (its
 * version and the file's device, inode, size and time), so a spare serves
 * only the same binary; SLOT is the first of EXEC_SPARE_SLOTS free (a
 * writer that finds none exits).  The next airlock exec connects to it (the
 * request carries its real uid and gid, state and configuration
 * directories and working directory) instead of forking a writer of its
 * own; the spare takes its socket's name away (exec_spare_hold()),
 * moves the session to STATE/sessions/ and goes on as that exec's
 * writer, as a forked one would.  So a run of execs pays the writer's fork, its preparation and
 * the namespace's making once, off the path of each command.
 *
 * Trust: the socket is in the state directory, which must be a directory
 * owned by the euid with no group or other write bit (else no spare is
 * made or adopted).  A spare serves an exec whose peer credentials
 * (SO_PEERCRED) have its euid and egid, whose real uid and gid and
 * directories match its own, and which is in all of its namespaces
 * (mount, pid, network, user, uts, ipc, cgroup); the exec takes a spare
 * whose peer uid is its euid.  Anything else, a refusal or a spare that
 * does not answer within a second, and the exec forks a writer as
 * before: a spare is only ever a shortcut.
 */
#ifndef AIRLOCK_EXEC_SPARE_H
#define AIRLOCK_EXEC_SPARE_H

#include <limits.h>
#include <sys/types.h>

/* How many spares of one binary may wait at once (exec-HASH-0.sock to
 * exec-HASH-3.sock): execs that follow each other closely take turns. */
#define EXEC_SPARE_SLOTS 4

/* Seconds a spare waits when AIRLOCK_EXEC_SPARE does not say. */
#define EXEC_SPARE_DEFAULT_S 30
#define EXEC_SPARE_MAX_S 3600

/* What an exec tells the spare it would adopt. */
struct spare_hello {
	unsigned long uid, gid; /* real */
	char state[PATH_MAX]; /* paths_state_dir() */
	char config[PATH_MAX]; /* paths_config_dir() */
	char cwd[PATH_MAX];
};

/* Fills |h| for this process.  0, or -1 (a path too long). */
int spare_hello_self(struct spare_hello *h);

/* AIRLOCK_EXEC_SPARE's seconds (0: no spare is made or adopted). */
int exec_spare_seconds(void);

/*
 * The exec's side, in two steps, so that the spare's checks overlap the
 * exec's own work.  exec_spare_ask() connects to the published spare and
 * sends this process's request: the connection and the spare's pid in
 * *pid, or -1 (no spare: fork a writer).  exec_spare_taken() waits (a
 * second at most) for its answer: 0 with *netns_fd a fresh network
 * namespace the spare made (or -1), text[0..textlen) the text the spare
 * sent with it ("" if none, or if it does not fit: the cgroups it made
 * ahead, runner_cgroup_ready_text()) and the connection now the writer's
 * socket (exec_audit.c), or -1 (refused: close it and fork a writer).
 */
int exec_spare_ask(pid_t *pid);
int exec_spare_taken(int s, int *netns_fd, char *text, size_t textlen);

/* The most text an answer carries. */
#define EXEC_SPARE_TEXT_MAX (3 * (4096 + 24))

/* The spare's side. */
struct exec_spare {
	int dirfd; /* STATE/spare; -1 */
	int lfd; /* the listening socket; -1 */
	char name[64]; /* exec-HASH-SLOT.sock, or its held name */
	dev_t dev; /* the socket's inode */
	ino_t ino;
	int held; /* under its held name, out of the execs' sight */
};

/* Sets |sp| to nothing published (before any other call). */
void exec_spare_init(struct exec_spare *sp);

/*
 * Publishes a listening socket under the binary's first free name (the
 * held one again when there is one: see exec_spare_hold()).  0, or -1
 * (nothing published: every slot is taken).
 */
int exec_spare_listen(struct exec_spare *sp);

/*
 * Takes the published name off the socket, which stays bound and
 * listening under a name of this process's, exec-HASH-held-PID.sock,
 * that no exec asks: so a writer that serves one exec after another
 * binds one socket, not one a session.  An exec that reached the socket
 * before it was held is refused by exec_spare_wait().  0, or -1: the
 * name could not be moved, and the socket is closed (as
 * exec_spare_unpublish() does).
 */
int exec_spare_hold(struct exec_spare *sp);

/*
 * Waits up to |timeout_ms| (-1: no limit) for |fd| to be readable,
 * refusing meanwhile each exec that connects to a held socket.  1: |fd|
 * is readable; 0: the time is up, or poll() failed.
 */
int exec_spare_wait(struct exec_spare *sp, int fd, int timeout_ms);

/*
 * Waits up to |timeout_ms| for an exec; returns its connection with its
 * request in |h| once its credentials and namespaces are checked (the
 * caller checks |h| and answers with exec_spare_answer()), or -1: the
 * time is up or the socket failed.  A connection whose checks fail is
 * refused and the wait goes on.
 */
int exec_spare_accept(
    struct exec_spare *sp, int timeout_ms, struct spare_hello *h);

/*
 * Answers the exec on |conn|: taken (|yes|, with |netns_fd| when not -1
 * and |text| when not NULL and shorter than EXEC_SPARE_TEXT_MAX) or
 * refused.  0, or -1 (the exec is gone).
 */
int exec_spare_answer(int conn, int yes, int netns_fd, const char *text);

/* Takes the name, published or held, off the socket (if it is still
 * ours) and closes both. */
void exec_spare_unpublish(struct exec_spare *sp);

/*
 * Removes what spares that died left under STATE/spare/: session
 * directories older than an hour whose log is empty, and held names
 * whose process is gone.
 */
void exec_spare_sweep(const struct exec_spare *sp);

#endif
