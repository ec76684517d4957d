/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * util: small helpers with no side effects beyond memory, plus the few
 * that every module needs from the OS (time, fds).
 */
#ifndef AIRLOCK_UTIL_H
#define AIRLOCK_UTIL_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define SHA256_HEX_LEN	64

/* Allocation wrappers that stop the process on exhaustion (daemon side). */
void	*xcalloc(size_t n, size_t size);
void	*xreallocarray(void *p, size_t n, size_t size);
char	*xstrdup(const char *s);
int	 xasprintf(char **out, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Writes the lowercase hex SHA-256 of |data| to |hex| (65 bytes). */
void	 sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/* Returns 1 if |s| is 64 lowercase hex digits, else 0. */
int	 is_sha256_hex(const char *s);

/* Returns 1 if data[0..len) is valid UTF-8 (no overlongs, no surrogates). */
int	 utf8_valid(const char *data, size_t len);

/*
 * Returns a malloc'd NUL-terminated copy of data[0..len) in which every
 * byte that is not part of valid UTF-8 (and every NUL) becomes U+FFFD.
 */
char	*utf8_sanitize(const char *data, size_t len);

/*
 * Cuts |s| before a character its end is inside of (a bounded snprintf()
 * or %.Ns cut it in two there); returns the new strlen(s).
 */
size_t	 utf8_trim(char *s);

/*
 * Copies |src| to dst[0..size) as UTF-8 (U+FFFD for each byte that is
 * not), cut between characters when it does not fit.
 */
void	 utf8_fit(char *dst, size_t size, const char *src);

/*
 * The bytes the NUL-terminated |s| takes inside a JSON string as jansson
 * writes it (without JSON_ENSURE_ASCII): 6 for a control character
 * (\u00XX), 2 for a quote, a backslash, \b, \f, \n, \r or \t, 1 for any
 * other byte.  A record that lists names a sandboxed run chose is
 * bounded by this, not strlen(): a name of control characters is six
 * times as long in the audit log.
 */
size_t	 json_str_len(const char *s);

/* Monotonic milliseconds, and wall-clock milliseconds since the epoch. */
int64_t	 now_monotonic_ms(void);
int64_t	 now_wall_ms(void);

/*
 * gmtime_r() without glibc's time zone: its first call reads and parses
 * /etc/localtime even for UTC.  Fills tm_year, tm_mon, tm_mday, tm_hour,
 * tm_min, tm_sec and tm_wday of |tm| for |t| seconds since the epoch.
 */
void	 utc_time(int64_t t, struct tm *tm);

/* Formats |ms| since the epoch as RFC 3339 UTC with milliseconds (needs 64 bytes). */
void	 format_rfc3339(int64_t ms, char out[64]);

/*
 * Closes every descriptor >= |lowfd| except those listed in keep[0..n).
 * Returns 0 or AL_ERR_SYSTEM.
 */
int	 close_fds_from(int lowfd, const int *keep, size_t n);

/*
 * Reads at most |size| bytes from |fd| (restarting on EINTR, stopping at
 * end of file) into a new NUL-terminated buffer (caller frees); *len is
 * what was read.
 */
char	*read_fd_upto(int fd, size_t size, size_t *len);
/*
 * Reads |fd| to its end into a new NUL-terminated buffer (caller frees),
 * *len what was read; NULL with errno EFBIG if it holds more than |max|
 * bytes, or with the read's errno: never a part taken for the whole.
 */
char	*read_fd_whole(int fd, size_t max, size_t *len);

/*
 * The next extent of data of the regular file |fd|, |size| bytes long, at
 * or after |off| (< size), by SEEK_DATA and SEEK_HOLE: *data is where it
 * starts (size: none, the rest is a hole) and *end where it ends (the
 * next hole, or size).  Where lseek(2) cannot tell (no SEEK_DATA on that
 * file system), the rest of the file is one extent of data.  Holes read
 * as zeros; a caller that never reads them never allocates them.
 */
void	 fd_next_data(int fd, off_t off, off_t size, off_t *data, off_t *end);

struct stat;

/* 1 if |a| and |b| are the same file, unchanged between the two stat()s
 * (device, inode, size, mtime and ctime), else 0. */
int	 stat_unchanged(const struct stat *a, const struct stat *b);

/* Writes all of |len| bytes, restarting on EINTR/short writes. 0 or AL_ERR_SYSTEM. */
int	 write_all(int fd, const void *data, size_t len);

/* fsync(2) of the directory |dir|, so that the names made, renamed or
 * removed in it survive a power loss.  0 or AL_ERR_SYSTEM. */
int	 fsync_dir(const char *dir);

/* Sets or clears O_NONBLOCK / FD_CLOEXEC.  0 or AL_ERR_SYSTEM. */
int	 fd_set_nonblock(int fd, int on);

/*
 * proc_args_save() records where main()'s argv strings live (call it
 * first thing); proc_args_set() then overwrites that memory in this
 * process with |title| and zeros, so /proc/PID/cmdline shows |title|, not
 * the supervisor's command line.  For a forked child (the sandbox's init)
 * only: the parent's memory is untouched.  |title| is cut to fit.
 */
void	 proc_args_save(int argc, char **argv);

/*
 * Writes ".airlock-TAG-<16 random hex digits>" to out[0..outlen): a name
 * for a temporary file or directory beside the one it will replace.
 */
void	 tmp_name(char *out, size_t outlen, const char *tag);

/*
 * 1 if the absolute path |path| is |dir| or lies beneath it (compared as
 * text: both should be canonical), else 0.  Every path is beneath "/".
 */
int	 path_is_beneath(const char *path, const char *dir);
void	 proc_args_set(const char *title);

/*
 * The width, in columns, of the terminal a person reads what this
 * process writes to |fd| on (STDOUT_FILENO, or STDERR_FILENO for
 * messages): |fd|'s own; else $COLUMNS, a positive number; else the
 * controlling terminal's (where a pager draws what is piped to it);
 * else 80.  term_columns_known() is the same but 0 where no terminal
 * and no $COLUMNS is found (a daemon's stderr, journald): messages there
 * are read by tools as much as by people, and are not folded.
 */
size_t	 term_columns(int fd);
size_t	 term_columns_known(int fd);
int	 fd_set_cloexec(int fd, int on);

/*
 * The directory that |ws|/.git names when it is a "gitdir:" file (a
 * worktree or a submodule), resolved against |ws| and canonical, in *out
 * (caller frees).  Returns 0 with *out NULL when .git is absent, a
 * directory, or not such a file; -1 if the file cannot be read or its
 * target does not resolve (callers protecting the repository refuse).
 */
int	 git_pointer_target(const char *ws, char **out);

/*
 * Puts |entry| ("NAME=VALUE", copied) into the NULL-terminated,
 * heap-allocated environment |*envp| (strings and array owned by it;
 * grown): an entry of the same NAME is replaced when |replace|, else kept
 * and |entry| dropped; otherwise |entry| is appended.  So an environment
 * built with it never holds a name twice: programs disagree on which of
 * two they read (glibc's getenv the first, node and dash the last).
 */
void	 env_put(char ***envp, const char *entry, int replace);

/* Frees each string of the NULL-terminated array |v|, then |v| (an
 * argv, an environment, a manifest's list).  NULL is fine. */
void	 strv_free(char **v);

#endif
