/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <sodium.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/util.h"

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size ? size : 1)) == NULL)
		fatal("calloc");
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

	if ((q = reallocarray(p, n ? n : 1, size ? size : 1)) == NULL)
		fatal("reallocarray");
	return q;
}

char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		fatal("strdup");
	return p;
}

int
xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("vasprintf");
	return n;
}

void
sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char md[SHA256_BYTES];

	sha256(md, data, len);	/* SHA-NI where the CPU has it */
	sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, sizeof(md));
}

int
is_sha256_hex(const char *s)
{
	size_t i;

	for (i = 0; i < SHA256_HEX_LEN; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	}
	return s[i] == '\0';
}

int
utf8_valid(const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t n, k;

		/* ASCII, eight bytes at a time (most text is). */
		if (c < 0x80) {
			uint64_t w;

			i++;
			while (len - i >= 8) {
				memcpy(&w, s + i, 8);
				if ((w & 0x8080808080808080ULL) != 0)
					break;
				i += 8;
			}
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else
			return 0;
		if (len - i <= n)
			return 0;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n + 1;
	}
	return 1;
}

/* Returns the length of the valid UTF-8 sequence at s[0..len), or 0. */
static size_t
utf8_seq_len(const unsigned char *s, size_t len)
{
	size_t n;

	if (s[0] != 0 && s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4;
	else
		return 0;
	if (n > len || !utf8_valid((const char *)s, n))
		return 0;
	return n;
}

char *
utf8_sanitize(const char *data, size_t len)
{
	const unsigned char	*s = (const unsigned char *)data;
	char			*out, *o;
	size_t			 i = 0, n;

	if (len > (SIZE_MAX - 1) / 3)
		fatalx("utf8_sanitize: input too large");
	/* Valid and without NUL (most text): a copy. */
	if (memchr(data, '\0', len) == NULL && utf8_valid(data, len)) {
		out = xcalloc(1, len + 1);
		memcpy(out, data, len);
		return out;
	}
	o = out = xcalloc(1, len * 3 + 1);
	while (i < len) {
		if ((n = utf8_seq_len(s + i, len - i)) == 0) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(o, s + i, n);
		o += n;
		i += n;
	}
	*o = '\0';
	return out;
}

size_t
utf8_trim(char *s)
{
	size_t	len = strlen(s), i = len, need;
	unsigned char c;

	while (i > 0 && len - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return len;
	c = (unsigned char)s[i - 1];
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	if (len - (i - 1) < need) {
		s[i - 1] = '\0';
		return i - 1;
	}
	return len;
}

size_t
json_str_len(const char *s)
{
	const unsigned char	*p;
	size_t			 n = 0;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\' || *p == '\b' || *p == '\f' ||
		    *p == '\n' || *p == '\r' || *p == '\t')
			n += 2;
		else if (*p < 0x20)
			n += 6;
		else
			n++;
	}
	return n;
}

void
utf8_fit(char *dst, size_t size, const char *src)
{
	char *cut = xstrdup(src), *valid;

	if (size == 0)
		fatalx("utf8_fit: no room");
	/* A character |src| was already cut inside of goes, not U+FFFD. */
	(void)utf8_trim(cut);
	valid = utf8_sanitize(cut, strlen(cut));
	free(cut);
	snprintf(dst, size, "%s", valid);
	free(valid);
	(void)utf8_trim(dst);
}

int64_t
now_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
now_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
utc_time(int64_t t, struct tm *tm)
{
	int64_t days = t / 86400, secs = t % 86400, z, era, doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* The civil date of a day count (Howard Hinnant's algorithm). */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	memset(tm, 0, sizeof(*tm));
	tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10);
	tm->tm_year = (int)(yoe + era * 400 + (tm->tm_mon <= 1) - 1900);
	tm->tm_hour = (int)(secs / 3600);
	tm->tm_min = (int)(secs / 60 % 60);
	tm->tm_sec = (int)(secs % 60);
	tm->tm_wday = (int)(((days % 7) + 11) % 7);
}

void
format_rfc3339(int64_t ms, char out[64])
{
	struct tm tm;

	utc_time(ms / 1000, &tm);
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static int
fd_is_kept(int fd, const int *keep, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (keep[i] == fd)
			return 1;
	return 0;
}

int
close_fds_from(int lowfd, const int *keep, size_t n)
{
	DIR *d;
	struct dirent *de;
	int dfd;

	/* Fast path: nothing to keep above lowfd. */
	if (n == 0 && syscall(SYS_close_range, lowfd, ~0U, 0) == 0)
		return 0;
	if ((d = opendir("/proc/self/fd")) == NULL)
		return AL_ERR_SYSTEM;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd;

		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, &end, 10);
		if (*end != '\0' || fd < lowfd || fd == dfd ||
		    fd_is_kept((int)fd, keep, n))
			continue;
		close((int)fd);
	}
	closedir(d);
	return 0;
}

char *
read_fd_upto(int fd, size_t size, size_t *len)
{
	char	*buf = xcalloc(1, size + 1);
	size_t	 got = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*len = got;
	return buf;
}

char *
read_fd_whole(int fd, size_t max, size_t *len)
{
	char *buf = xcalloc(1, max + 1), probe;
	size_t got = 0;
	ssize_t n;
	int e;

	for (;;) {
		n = got < max ? read(fd, buf + got, max - got)
			      : read(fd, &probe, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0)
			break;
		if (n == -1 || got == max) {
			e = n == -1 ? errno : EFBIG;
			free(buf);
			errno = e;
			return NULL;
		}
		got += (size_t)n;
	}
	*len = got;
	return buf;
}

void
fd_next_data(int fd, off_t off, off_t size, off_t *data, off_t *end)
{
	off_t d, e;

	if ((d = lseek(fd, off, SEEK_DATA)) == -1)
		d = errno == ENXIO ? size : off;
	if (d > size)
		d = size;
	e = size;
	/* A file changing meanwhile may answer anything: keep going. */
	if (d < size &&
	    ((e = lseek(fd, d, SEEK_HOLE)) == -1 || e > size || e <= d))
		e = size;
	*data = d;
	*end = e;
}

int
stat_unchanged(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return AL_ERR_SYSTEM;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fsync_dir(const char *dir)
{
	int fd, rc;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return AL_ERR_SYSTEM;
	rc = fsync(fd) == -1 ? AL_ERR_SYSTEM : 0;
	close(fd);
	return rc;
}

static int
fd_flag(int fd, int getcmd, int setcmd, int flag, int on)
{
	int fl;

	if ((fl = fcntl(fd, getcmd)) == -1)
		return AL_ERR_SYSTEM;
	fl = on ? (fl | flag) : (fl & ~flag);
	if (fcntl(fd, setcmd, fl) == -1)
		return AL_ERR_SYSTEM;
	return 0;
}

int
fd_set_nonblock(int fd, int on)
{
	return fd_flag(fd, F_GETFL, F_SETFL, O_NONBLOCK, on);
}

int
fd_set_cloexec(int fd, int on)
{
	return fd_flag(fd, F_GETFD, F_SETFD, FD_CLOEXEC, on);
}

static char	*args_start, *args_end;

void
proc_args_save(int argc, char **argv)
{
	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return;
	args_start = argv[0];
	args_end = argv[argc - 1] + strlen(argv[argc - 1]);
}

void
proc_args_set(const char *title)
{
	size_t room;

	if (args_start == NULL)
		return;
	room = (size_t)(args_end - args_start);
	memset(args_start, 0, room + 1);
	if (room > 0)
		memcpy(args_start, title, strnlen(title, room));
}

void
tmp_name(char *out, size_t outlen, const char *tag)
{
	unsigned char	r[8];
	char		hex[17];

	randombytes_buf(r, sizeof(r));
	sodium_bin2hex(hex, sizeof(hex), r, sizeof(r));
	snprintf(out, outlen, ".airlock-%s-%s", tag, hex);
}

int
path_is_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* git_pointer_target: see util.h. */
int
git_pointer_target(const char *ws, char **out)
{
	char path[2 * PATH_MAX + 32], buf[PATH_MAX + 16], *t, *nl;
	struct stat st;
	ssize_t n;
	int fd;

	*out = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/.git", ws) >= sizeof(path))
		return -1;
	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, "gitdir:", 7) != 0)
		return 0;
	for (t = buf + 7; *t == ' ' || *t == '\t'; t++)
		;
	if ((nl = strpbrk(t, "\r\n")) != NULL)
		*nl = '\0';
	if (*t == '\0')
		return -1;
	if (*t != '/') {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", ws, t) >=
		    sizeof(path))
			return -1;
		t = path;
	}
	/* realpath() of a target that does not exist yet fails: refuse. */
	return (*out = realpath(t, NULL)) == NULL ? -1 : 0;
}

/* The columns of the terminal |fd|, or 0. */
static size_t
tty_columns(int fd)
{
	struct winsize ws;

	if (fd == -1 || !isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) == -1)
		return 0;
	return ws.ws_col;
}

size_t
term_columns_known(int out)
{
	const char *e = getenv("COLUMNS");
	char *end;
	size_t w;
	long v;
	int fd;

	if ((w = tty_columns(out)) > 0)
		return w;
	if (e != NULL && *e != '\0') {
		errno = 0;
		v = strtol(e, &end, 10);
		if (errno == 0 && *end == '\0' && v > 0 && v < 100000)
			return (size_t)v;
	}
	if ((fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC)) != -1) {
		w = tty_columns(fd);
		close(fd);
	}
	return w;
}

size_t
term_columns(int out)
{
	size_t w = term_columns_known(out);

	return w > 0 ? w : 80;
}

void
env_put(char ***envp, const char *entry, int replace)
{
	size_t len = strcspn(entry, "=") + 1, n;

	for (n = 0; (*envp)[n] != NULL; n++) {
		if (strncmp((*envp)[n], entry, len) != 0)
			continue;
		if (replace) {
			free((*envp)[n]);
			(*envp)[n] = xstrdup(entry);
		}
		return;
	}
	*envp = xreallocarray(*envp, n + 2, sizeof(**envp));
	(*envp)[n++] = xstrdup(entry);
	(*envp)[n] = NULL;
}

void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}
