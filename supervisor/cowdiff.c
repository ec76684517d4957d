/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * cowdiff: see cowdiff.h.  Text files are compared by diffutils' diff,
 * given the two files as already-open descriptors (/dev/fd/N), so that
 * it never resolves a path the session controls.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <signal.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/changeset.h"
#include "common/errors.h"
#include "common/util.h"
#include "common/vis.h"
#include "policy/path.h"
#include "policy/writepolicy.h"
#include "supervisor/cowdiff.h"

#define DIFF_PROG "diff"
#define BINARY_PROBE 8000
#define DIFF_MAX_OUT ((size_t)256 * 1024 * 1024)
/* A change that cannot be shown whole is not shown in part: the part
 * left out could be anything. */
#define TOO_LARGE \
	"%s: the change is over 256 MiB of diff: not shown (a part could " \
	"hide the rest); discard the session, or review and copy the file " \
	"by hand"

struct item {
	struct changeset_item ci;
	int real; /* the checkout has the path */
	struct stat rst; /* when real */
	int hidden; /* shown as part of a rename */
	const char *rename_from; /* a removed file with the same bytes */
};

static int
cmp_items(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->ci.path,
	    ((const struct item *)b)->ci.path);
}

/* Opens |path| beneath |rootfd| for reading, no symlink followed. */
static int
open_beneath(int rootfd, const char *path)
{
	int fd;

	if (path_resolve_walk(
		rootfd, path, O_RDONLY | O_NOFOLLOW, &fd, NULL, 0) != 0)
		return -1;
	return fd;
}

/*
 * The checkout's regular file at |path| beneath |rootfd|, for reading,
 * or -1: as open_beneath(), but a file of several names is opened too
 * (the diff only reads the checkout's own file, and what lands never
 * writes through it): pnpm links node_modules from its store, and an
 * edit of such a file was shown as the whole new text added to an empty
 * one, a line taken out shown nowhere.
 */
static int
open_checkout_file(int rootfd, const char *path)
{
	char name[NAME_MAX + 1];
	struct stat st;
	int dfd, fd;

	if (path_resolve_parent(
		rootfd, path, &dfd, name, sizeof(name), NULL, 0) != 0)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd != -1 && (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Whether the |n| bytes |buf| are text but for their NULs: valid UTF-8
 * (a sequence cut at the end of a full probe aside) with no control
 * character but whitespace, backspace and escape.  bash and node run a
 * script with a NUL in a comment, which made it a binary file, shown as
 * "Binary files ... differ": a tests/run.sh that ran "curl ... | sh"
 * showed nothing of it.  A binary format fails this at once (a PNG's
 * \x89, an ELF's \x7f, a gzip's \x1f\x8b).
 */
static int
text_but_nuls(const char *buf, size_t n)
{
	char t[BINARY_PROBE];
	size_t i, len = 0, cut;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)buf[i];
		if (c == '\0')
			continue;
		if ((c < 0x20 && strchr("\t\n\v\f\r\b\033", c) == NULL) ||
		    c == 0x7f)
			return 0;
		t[len++] = (char)c;
	}
	for (cut = 0; cut < 4 && cut <= len; cut++) {
		if (utf8_valid(t, len - cut))
			return 1;
		if (n < BINARY_PROBE)
			break;
	}
	return 0;
}

/*
 * Whether the |n| bytes |buf| begin as a binary format does: images,
 * fonts, archives, executables and objects, databases.  Only a file in
 * such a format is shown as binary: a byte that is not UTF-8, or a
 * control character, in a comment hid a new script as well as a NUL
 * did (bash and node run past both), and no rule over which bytes a
 * file holds tells a script from data.  A format not listed here is
 * shown as text, each byte that is not text escaped: long, never
 * hidden.
 */
static int
binary_magic(const char *buf, size_t n)
{
	static const struct {
		size_t off, len;
		const char *sig;
	} magic[] = {
		{ 0, 4, "\177ELF" }, { 0, 2, "MZ" }, /* PE, DOS */
		{ 0, 4, "\376\355\372\316" }, /* Mach-O */
		{ 0, 4, "\376\355\372\317" }, { 0, 4, "\316\372\355\376" },
		{ 0, 4, "\317\372\355\376" },
		{ 0, 4, "\312\376\272\276" }, /* fat Mach-O, Java class */
		{ 0, 4, "\0asm" }, { 0, 8, "!<arch>\n" }, /* ar: .a, .deb */
		{ 0, 8, "\211PNG\r\n\032\n" },
		{ 0, 3, "\377\330\377" }, /* JPEG */
		{ 0, 6, "GIF87a" }, { 0, 6, "GIF89a" },
		{ 0, 4, "RIFF" }, /* WebP, WAV, AVI */
		{ 0, 2, "BM" }, { 0, 4, "\0\0\1\0" }, /* ICO */
		{ 0, 4, "II*\0" }, /* TIFF */
		{ 0, 4, "MM\0*" }, { 4, 4, "ftyp" }, /* MP4, HEIC, AVIF */
		{ 0, 4, "OggS" }, { 0, 4, "fLaC" }, { 0, 3, "ID3" },
		{ 0, 4, "\0\1\0\0" }, /* TrueType */
		{ 0, 4, "OTTO" }, { 0, 4, "wOFF" }, { 0, 4, "wOF2" },
		{ 0, 4, "PK\3\4" }, /* zip, jar, wheel, OOXML */
		{ 0, 4, "PK\5\6" }, { 0, 2, "\037\213" }, /* gzip */
		{ 0, 3, "BZh" }, { 0, 6, "\3757zXZ\0" },
		{ 0, 4, "\050\265\057\375" }, /* zstd */
		{ 0, 6, "7z\274\257\047\034" }, { 257, 5, "ustar" }, /* tar */
		{ 0, 16, "SQLite format 3\0" }, { 0, 5, "%PDF-" },
		{ 0, 4, "PACK" }, /* a git pack */
		{ 0, 4, "\377tOc" }, /* a git pack index */
	};
	size_t i;

	for (i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (n >= magic[i].off + magic[i].len &&
		    memcmp(buf + magic[i].off, magic[i].sig, magic[i].len) == 0)
			return 1;
	/* Python 3's bytecode: a version's number (2816 to 4095), "\r\n",
	 * then flags 0 to 3. */
	return n >= 16 && (unsigned char)buf[1] >= 0x0b &&
	    (unsigned char)buf[1] <= 0x0f && buf[2] == '\r' && buf[3] == '\n' &&
	    buf[5] == 0 && buf[6] == 0 && buf[7] == 0;
}

/* A NUL in the first BINARY_PROBE bytes of |fd|, not text but for them
 * (text_but_nuls()), in a binary format (binary_magic()). */
static int
is_binary(int fd)
{
	char buf[BINARY_PROBE];
	ssize_t n;

	if (fd == -1)
		return 0;
	n = pread(fd, buf, sizeof(buf), 0);
	return n > 0 && memchr(buf, '\0', (size_t)n) != NULL &&
	    !text_but_nuls(buf, (size_t)n) && binary_magic(buf, (size_t)n);
}

static int
same_bytes(int a, int b)
{
	char ba[65536], bb[65536];
	off_t off = 0;
	ssize_t na, nb;

	for (;;) {
		na = pread(a, ba, sizeof(ba), off);
		nb = pread(b, bb, sizeof(bb), off);
		if (na < 0 || nb < 0 || na != nb)
			return 0;
		if (na == 0)
			return 1;
		if (memcmp(ba, bb, (size_t)na) != 0)
			return 0;
		off += na;
	}
}

/* Appends |s| escaped (vis, one line) to |fp|. */
static void
put_vis(FILE *fp, const char *s)
{
	char *v = vis_str(s, 0);

	fputs(v != NULL ? v : "?", fp);
	free(v);
}

/*
 * Runs diff -u over |oldfd| (or /dev/null when -1) and |newfd| and
 * appends its output, escaped, to |fp|.
 */
static int
run_diff(
    FILE *fp, const char *path, int oldfd, int newfd, char *err, size_t errlen)
{
	static const char heads[] = "--- a\n+++ b\n";
	static const char binary[] = "Binary files a and b differ\n";
	char *v, *outbuf, *body;
	char olds[32], news[32];
	int pfd[2], status, saved;
	size_t len;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if ((pid = fork()) == -1) {
		close(pfd[0]);
		close(pfd[1]);
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (pid == 0) {
		/* 3 and 4 are the two files; everything else closes. */
		if (dup2(pfd[1], STDOUT_FILENO) == -1 ||
		    (oldfd != -1 && dup2(oldfd, 3) == -1) ||
		    dup2(newfd, 4) == -1)
			_exit(127);
		(void)close_fds_from(5, NULL, 0);
		snprintf(olds, sizeof(olds), "%s",
		    oldfd != -1 ? "/dev/fd/3" : "/dev/null");
		snprintf(news, sizeof(news), "/dev/fd/4");
		/* Labels of diff's own: the path, which may hold a newline,
		 * is written below, escaped. */
		/* -a: which file is binary is is_binary()'s to say; a
		 * NUL past its probe, or text with NULs, is shown. */
		execlp(DIFF_PROG, DIFF_PROG, "-a", "-u", "--label", "a",
		    "--label", "b", olds, news, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	outbuf = read_fd_whole(pfd[0], DIFF_MAX_OUT, &len);
	saved = errno;
	close(pfd[0]);
	/* What is not read whole is not shown: diff(1) is not waited on
	 * to fill a pipe nobody reads. */
	if (outbuf == NULL)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (outbuf == NULL && saved == EFBIG) {
		snprintf(err, errlen, TOO_LARGE, path);
		return AL_ERR_LIMIT;
	}
	if (outbuf == NULL || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
		free(outbuf);
		snprintf(err, errlen,
		    "%s: diff(1) failed (is diffutils installed?)", path);
		return AL_ERR_SYSTEM;
	}
	if (len == 0) {
		free(outbuf);
		return 0;
	}
	if (len == sizeof(binary) - 1 && memcmp(outbuf, binary, len) == 0) {
		free(outbuf);
		fputs("Binary files a/", fp);
		put_vis(fp, path);
		fputs(" and b/", fp);
		put_vis(fp, path);
		fputs(" differ\n", fp);
		return 0;
	}
	/* Anything but a unified diff under those labels is not shown. */
	if (len < sizeof(heads) - 1 ||
	    memcmp(outbuf, heads, sizeof(heads) - 1) != 0) {
		free(outbuf);
		snprintf(
		    err, errlen, "%s: diff(1) wrote no unified diff", path);
		return AL_ERR_SYSTEM;
	}
	body = outbuf + sizeof(heads) - 1;
	if ((v = vis_dup(body, len - (size_t)(body - outbuf), VIS_MULTILINE)) ==
	    NULL) {
		free(outbuf);
		snprintf(err, errlen, "%s: the diff is too large", path);
		return AL_ERR_LIMIT;
	}
	fputs("--- a/", fp);
	put_vis(fp, path);
	fputs("\n+++ b/", fp);
	put_vis(fp, path);
	fputc('\n', fp);
	fputs(v, fp);
	free(v);
	free(outbuf);
	return 0;
}

/*
 * diff -u of /dev/null against the new file |fd|, written here as diff
 * writes it (no process per new file): the labels, one hunk of every
 * line, "\\ No newline at end of file" after an unterminated last line;
 * nothing for an empty file.
 */
static int
new_file_diff(FILE *fp, const char *path, int fd, char *err, size_t errlen)
{
	char *buf, *v, *p, *end;
	size_t len, lines = 0;

	if ((buf = read_fd_whole(fd, DIFF_MAX_OUT, &len)) == NULL) {
		if (errno == EFBIG) {
			snprintf(err, errlen, TOO_LARGE, path);
			return AL_ERR_LIMIT;
		}
		snprintf(err, errlen, "%s: cannot be read in the session: %s",
		    path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (len == 0) {
		free(buf);
		return 0;
	}
	end = buf + len;
	for (p = buf; p < end; p++)
		lines += *p == '\n';
	if (end[-1] != '\n')
		lines++;
	fputs("--- a/", fp);
	put_vis(fp, path);
	fputs("\n+++ b/", fp);
	put_vis(fp, path);
	if (lines == 1)
		fputs("\n@@ -0,0 +1 @@\n", fp);
	else
		fprintf(fp, "\n@@ -0,0 +1,%zu @@\n", lines);
	for (p = buf; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

		if ((v = vis_dup(p, l, VIS_KEEP_TAB)) == NULL) {
			free(buf);
			snprintf(
			    err, errlen, "%s: the diff is too large", path);
			return AL_ERR_LIMIT;
		}
		fputc('+', fp);
		fputs(v, fp);
		fputc('\n', fp);
		free(v);
		if (nl == NULL) {
			fputs("\\ No newline at end of file\n", fp);
			break;
		}
		p = nl + 1;
	}
	free(buf);
	return 0;
}

/* The sha256 of the bytes of |fd| into |md|: 0, or -1 (a read failed). */
static int
fd_sha256(int fd, unsigned char md[crypto_hash_sha256_BYTES])
{
	crypto_hash_sha256_state st;
	unsigned char buf[65536];
	off_t off = 0;
	ssize_t n;

	crypto_hash_sha256_init(&st);
	while ((n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		crypto_hash_sha256_update(&st, buf, (size_t)n);
		off += n;
	}
	crypto_hash_sha256_final(&st, md);
	return 0;
}

/*
 * "sha256 HEX" of the bytes of |fd|, the file as it would land: the
 * digest of the text then binds what it does not show (a binary file's
 * bytes, whatever a display cuts).
 */
static int
put_sha256(FILE *fp, const char *path, int fd, char *err, size_t errlen)
{
	unsigned char md[crypto_hash_sha256_BYTES];
	char hex[2 * crypto_hash_sha256_BYTES + 1];

	if (fd_sha256(fd, md) != 0) {
		snprintf(
		    err, errlen, "%s: cannot be read in the session", path);
		return AL_ERR_SYSTEM;
	}
	sodium_bin2hex(hex, sizeof(hex), md, sizeof(md));
	fprintf(fp, "sha256 %s\n", hex);
	return 0;
}

/*
 * One side of a rename: entry |idx| of the items, a new file (its
 * size, the mode it lands with) or a removed one (its size and mode in
 * the checkout), and the sha256 of its bytes.
 */
struct side {
	size_t idx;
	off_t size;
	mode_t mode;
	unsigned char md[crypto_hash_sha256_BYTES];
};

static int
cmp_off(const void *a, const void *b)
{
	off_t x = *(const off_t *)a, y = *(const off_t *)b;

	return x < y ? -1 : x > y;
}

/* What makes a rename: the same size, mode and bytes. */
static int
cmp_key(const struct side *x, const struct side *y)
{
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->mode != y->mode)
		return x->mode < y->mode ? -1 : 1;
	return memcmp(x->md, y->md, sizeof(x->md));
}

/* By key, then in path order (the items are sorted). */
static int
cmp_side(const void *a, const void *b)
{
	const struct side *x = a, *y = b;
	int c;

	if ((c = cmp_key(x, y)) != 0)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Keeps of the |n| sides |s| (opened beneath |dirfd|) those whose size
 * one of the |nother| sorted sizes |other| has, each hashed; returns how
 * many are kept.  A file that cannot be read is no rename.
 */
static size_t
hash_sides(struct side *s, size_t n, const off_t *other, size_t nother,
    int dirfd, const struct item *v)
{
	size_t i, kept = 0;
	int fd;

	for (i = 0; i < n; i++) {
		if (bsearch(&s[i].size, other, nother, sizeof(*other),
			cmp_off) == NULL ||
		    (fd = open_beneath(dirfd, v[s[i].idx].ci.path)) == -1)
			continue;
		if (fd_sha256(fd, s[i].md) == 0)
			s[kept++] = s[i];
		close(fd);
	}
	return kept;
}

/*
 * Renames: a new file with the bytes and mode of a removed one is shown
 * as "rename from" it (the removal hidden), the first new file in path
 * order taking the first such removal.  Each file is read once, and
 * only when the other side has a file of its size; both sides are then
 * sorted and merged.  Before, every new file was opened and compared
 * with every removed one: an agent that removed 3000 files of the
 * checkout and wrote 3000 others kept airlock diff and airlock commit
 * busy for five minutes (an npm reinstall of 20000, hours), and the
 * person could review nothing meanwhile.
 */
static void
find_renames(struct item *v, size_t n, int upperfd, int rootfd)
{
	struct side *nw = xcalloc(n + 1, sizeof(*nw));
	struct side *gone = xcalloc(n + 1, sizeof(*gone));
	off_t *nsizes = xcalloc(n + 1, sizeof(*nsizes));
	off_t *gsizes = xcalloc(n + 1, sizeof(*gsizes));
	size_t nn = 0, ng = 0, nnew, ngone, i, a, b;
	struct stat st;
	int fd, ofd;

	for (i = 0; i < n; i++)
		if (v[i].ci.kind == WP_DELETE && v[i].real &&
		    S_ISREG(v[i].rst.st_mode)) {
			gone[ng].idx = i;
			gone[ng].size = v[i].rst.st_size;
			gone[ng].mode = v[i].rst.st_mode & 0777;
			gsizes[ng++] = v[i].rst.st_size;
		}
	/* Nothing removed (the usual set): no new file is opened. */
	for (i = 0; i < n && ng > 0; i++) {
		if (v[i].ci.kind != WP_FILE || v[i].real ||
		    (fd = open_beneath(upperfd, v[i].ci.path)) == -1)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			nw[nn].idx = i;
			nw[nn].size = st.st_size;
			nw[nn].mode = v[i].ci.mode;
			nsizes[nn++] = st.st_size;
		}
		close(fd);
	}
	qsort(nsizes, nn, sizeof(*nsizes), cmp_off);
	qsort(gsizes, ng, sizeof(*gsizes), cmp_off);
	nnew = hash_sides(nw, nn, gsizes, ng, upperfd, v);
	ngone = hash_sides(gone, ng, nsizes, nn, rootfd, v);
	qsort(nw, nnew, sizeof(*nw), cmp_side);
	qsort(gone, ngone, sizeof(*gone), cmp_side);
	for (a = b = 0; a < nnew && b < ngone;) {
		int c = cmp_key(&nw[a], &gone[b]);

		if (c < 0) {
			a++;
			continue;
		}
		if (c > 0) {
			b++;
			continue;
		}
		/* The digests agree; the bytes are compared all the same. */
		if ((fd = open_beneath(upperfd, v[nw[a].idx].ci.path)) != -1) {
			if ((ofd = open_beneath(
				 rootfd, v[gone[b].idx].ci.path)) != -1) {
				if (same_bytes(fd, ofd)) {
					v[gone[b].idx].hidden = 1;
					v[nw[a].idx].rename_from =
					    v[gone[b].idx].ci.path;
				}
				close(ofd);
			}
			close(fd);
		}
		a++;
		b++;
	}
	free(nw);
	free(gone);
	free(nsizes);
	free(gsizes);
}

/*
 * The symlinks of the workspace as the set lands (the set's, and the
 * checkout's where the set has nothing): a tool reads its configuration
 * through them.  A session's .cargo -> c beside c/config.toml, or the
 * checkout's .npmrc -> conf/npmrc beside a changed conf/npmrc, showed
 * the file unmarked, and the person's next cargo build or npm test ran
 * the program it names.  Sorted by dest.
 */
struct link {
	char *path;
	char *dest; /* where its text leads, one hop, "" the root */
};

struct links {
	struct link *v;
	size_t n, cap;
};

/* The most directories deep the checkout is walked for its links. */
#define LINKS_MAX_DEPTH 256
/* The most names one path is looked at by (its own among them). */
#define ALIAS_MAX 256
#define ALIAS_TOO_MANY \
	"a tool, maybe: the path has more names through symlinks than " \
	"are looked at"

/*
 * Where the link at |path| with text |target| leads, into |dest| (|len|
 * bytes; writepolicy_link_resolve()): 0, or -1 when it leads to no path
 * of a set.  A text of more names than the resolver reads (512) leads
 * into the set all the same when its leading ".." climb first: the
 * checkout's a/.../a/.npmrc (256 deep) -> 256 ".." and b/.../b/npmrc
 * (257 names) was skipped, and its target, changed, showed unmarked.  So
 * the climb is taken from the link's directory, and the rest read from
 * where it climbed to; what still does not fit is over 512 names or
 * PATH_REL_MAX bytes, deeper or longer than a path of a set may be
 * (broker/changeset.c: CS_MAX_DEPTH, too_long()), and names none.
 */
static int
link_dest_of(const char *path, const char *target, char *dest, size_t len)
{
	char from[PATH_REL_MAX];
	const char *rest = target;
	size_t ups = 0, i;
	char *cut;
	int rc;

	if ((rc = writepolicy_link_resolve(path, target, dest, len)) != -2)
		return rc == 0 ? 0 : -1;
	for (;; rest++) {
		if (rest[0] == '/' ||
		    (rest[0] == '.' && (rest[1] == '/' || rest[1] == '\0')))
			continue;
		if (rest[0] != '.' || rest[1] != '.' ||
		    (rest[2] != '/' && rest[2] != '\0'))
			break;
		ups++;
		rest++;
	}
	if (ups == 0 || strlen(path) >= sizeof(from))
		return -1;
	snprintf(from, sizeof(from), "%s", path);
	/* The link's own name, then a directory for each "..". */
	for (i = 0; i <= ups; i++) {
		if ((cut = strrchr(from, '/')) != NULL)
			*cut = '\0';
		else if (i == ups)
			from[0] = '\0';
		else
			return -1; /* it climbs out of the workspace */
	}
	if (rest[0] == '\0')
		return (size_t)snprintf(dest, len, "%s", from) < len ? 0 : -1;
	if ((size_t)snprintf(
		dest, len, "%s%s_", from, from[0] != '\0' ? "/" : "") >= len ||
	    strlen(dest) >= sizeof(from))
		return -1;
	snprintf(from, sizeof(from), "%s", dest);
	return writepolicy_link_resolve(from, rest, dest, len) == 0 ? 0 : -1;
}

static void
links_add(struct links *l, const char *path, const char *target)
{
	char dest[PATH_REL_MAX];

	/* A link leaving the workspace leads to no file of the set. */
	if (link_dest_of(path, target, dest, sizeof(dest)) != 0)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap > 0 ? 2 * l->cap : 64;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n].path = xstrdup(path);
	l->v[l->n++].dest = xstrdup(dest);
}

static void
links_free(struct links *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].dest);
	}
	free(l->v);
}

static int
cmp_link_dest(const void *a, const void *b)
{
	return strcmp(
	    ((const struct link *)a)->dest, ((const struct link *)b)->dest);
}

/* Whether the set (|v|, |n| items, sorted) has an entry at |path|. */
static int
in_set(const struct item *v, size_t n, const char *path)
{
	struct item key = { 0 };

	key.ci.path = path;
	return bsearch(&key, v, n, sizeof(*v), cmp_items) != NULL;
}

/*
 * Adds the symlinks beneath the checkout's directory |dirfd| (workspace
 * path |path|, |plen| bytes) that the set leaves in place; a .git at
 * the root is not walked.  0, or -1 with errno (a directory that cannot
 * be read, too deep, a name too long: the labels could not be told).
 */
static int
walk_links(struct links *l, const struct item *v, size_t n, int dirfd,
    char *path, size_t plen, int depth)
{
	char target[PATH_REL_MAX];
	struct dirent *de;
	struct stat st;
	size_t nlen;
	ssize_t tl;
	DIR *d;
	int fd, sub, rc = 0, type;

	if (depth > LINKS_MAX_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (plen == 0 && strcmp(de->d_name, ".git") == 0))
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd, de->d_name, &st,
				AT_SYMLINK_NOFOLLOW) == -1) {
				rc = -1;
				break;
			}
			type = S_ISLNK(st.st_mode) ? DT_LNK
			    : S_ISDIR(st.st_mode)  ? DT_DIR
						   : DT_REG;
		}
		if (type != DT_LNK && type != DT_DIR)
			continue;
		nlen = strlen(de->d_name);
		if (plen + nlen + 2 > PATH_REL_MAX) {
			errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		if (plen > 0)
			path[plen] = '/';
		memcpy(path + plen + (plen > 0), de->d_name, nlen + 1);
		if (type == DT_LNK) {
			tl = readlinkat(
			    dirfd, de->d_name, target, sizeof(target) - 1);
			if (tl < 0) {
				rc = -1;
				break;
			}
			target[tl] = '\0';
			if (!in_set(v, n, path))
				links_add(l, path, target);
		} else if ((sub = openat(dirfd, de->d_name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				    O_CLOEXEC)) == -1)
			rc = -1;
		else {
			rc = walk_links(l, v, n, sub, path,
			    plen + (plen > 0) + nlen, depth + 1);
			close(sub);
		}
		path[plen] = '\0';
	}
	if (rc == 0 && errno != 0)
		rc = -1;
	fd = errno;
	closedir(d);
	errno = fd;
	return rc;
}

/*
 * The workspace's links as the set lands (struct links): the set's,
 * and the checkout's.  0, or an error in err.
 */
static int
links_collect(struct links *l, const struct item *v, size_t n, int rootfd,
    char *err, size_t errlen)
{
	char path[PATH_REL_MAX] = "";
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].ci.kind == WP_SYMLINK && v[i].ci.target != NULL)
			links_add(l, v[i].ci.path, v[i].ci.target);
	if (walk_links(l, v, n, rootfd, path, 0, 0) != 0) {
		snprintf(err, errlen,
		    "the checkout's symlinks cannot be listed (%s%s%s): what "
		    "a tool reads through them cannot be told",
		    path, path[0] != '\0' ? ": " : "", strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (l->n > 0)
		qsort(l->v, l->n, sizeof(*l->v), cmp_link_dest);
	return 0;
}

/* Whether |as[0..n)| holds |s|. */
static int
seen(char *const *as, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(as[i], s) == 0)
			return 1;
	return 0;
}

/*
 * What a tool runs of the file or symlink |path| (writepolicy_runs_on(),
 * and for a symlink writepolicy_runs_on_beneath()), under its own name
 * or under any name a link of |l| gives it: a link to it, or to a
 * directory above it.  Only its last WP_RUNS_ON_COMPS components are
 * looked at, so only a link to it or to one of its nearest directories
 * names it anew.  Returns the static text, or NULL; *as is the name it
 * is read by (caller frees; NULL when its own, or when it has more
 * names than are looked at: then it is told for what it may be),
 * *beneath whether a tool reads beneath that name.
 */
static const char *
label_of(const struct links *l, const char *path, int islink, char **as,
    int *beneath)
{
	char *names[ALIAS_MAX], buf[PATH_REL_MAX], alias[PATH_REL_MAX];
	const char *runs = NULL, *rest;
	struct link key = { 0 }, *hit;
	size_t nn = 1, i, k, j, len;

	*as = NULL;
	*beneath = 0;
	names[0] = xstrdup(path);
	for (i = 0; i < nn && runs == NULL; i++) {
		if ((runs = writepolicy_runs_on(names[i])) == NULL && islink &&
		    (runs = writepolicy_runs_on_beneath(names[i])) != NULL)
			*beneath = 1;
		if (runs != NULL) {
			if (i > 0)
				*as = xstrdup(names[i]);
			break;
		}
		/* A link to it, or to its nearest directories (the root
		 * among them): the rest after that directory is the same
		 * beneath the link. */
		for (k = 0, len = strlen(names[i]); k < WP_RUNS_ON_COMPS; k++) {
			memcpy(buf, names[i], len);
			buf[len] = '\0';
			rest = names[i][len] == '\0' ? ""
			    : len == 0		     ? names[i]
						     : names[i] + len + 1;
			key.dest = buf;
			hit = l->n == 0 ? NULL
					: bsearch(&key, l->v, l->n,
					      sizeof(*l->v), cmp_link_dest);
			while (hit != NULL && hit > l->v &&
			    strcmp(hit[-1].dest, buf) == 0)
				hit--;
			for (j = hit != NULL ? (size_t)(hit - l->v) : l->n;
			     j < l->n && strcmp(l->v[j].dest, buf) == 0 &&
			     runs == NULL;
			     j++) {
				if ((size_t)snprintf(alias, sizeof(alias),
					"%s%s%s", l->v[j].path,
					rest[0] != '\0' ? "/" : "",
					rest) >= sizeof(alias) ||
				    seen(names, nn, alias))
					continue;
				if (nn == ALIAS_MAX)
					runs = ALIAS_TOO_MANY;
				else
					names[nn++] = xstrdup(alias);
			}
			if (len == 0)
				break;
			while (len > 0 && names[i][len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		}
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	return runs;
}

/*
 * "RUNS ON TOOL: what" under a block's header when |path| configures a
 * program its tool runs (label_of()): a one-line .npmrc or
 * rust-toolchain.toml reads as settings, and makes the person's next npm
 * or cargo run a script of the agent's.  With the name the tool reads it
 * by, when that is another.  Returns whether it printed one.
 */
static int
runs_on(FILE *fp, const struct links *l, const char *path, int islink)
{
	const char *runs;
	char *as;
	int beneath;

	if ((runs = label_of(l, path, islink, &as, &beneath)) == NULL)
		return 0;
	fprintf(fp, "RUNS ON %s", runs);
	if (as != NULL || beneath) {
		fputs(beneath ? " (read beneath " : " (read as ", fp);
		put_vis(fp, as != NULL ? as : path);
		fputs(beneath ? "/)" : ")", fp);
	}
	fputc('\n', fp);
	free(as);
	return 1;
}

static void
header(FILE *fp, const char *path)
{
	fputs("diff --airlock a/", fp);
	put_vis(fp, path);
	fputs(" b/", fp);
	put_vis(fp, path);
	fputc('\n', fp);
}

/*
 * A written file of the session that cannot be opened: one of several
 * names (a hard link, which the policy refuses and path_resolve_walk()
 * will not open) is shown as such, "hard link PATH (N names)", so that
 * the diff shows the rest and the commit refuses it by its rule (both
 * failed "cannot be read in the session", no refusal recorded); any
 * other fails the diff.
 */
static int
unopened_block(
    FILE *fp, const struct item *it, int upperfd, char *err, size_t errlen)
{
	struct stat st;

	if (path_lstat_beneath(upperfd, it->ci.path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_nlink > 1) {
		fputs("hard link ", fp);
		put_vis(fp, it->ci.path);
		fprintf(fp, " (%ju names)\n", (uintmax_t)st.st_nlink);
		return 0;
	}
	snprintf(err, errlen, "%s: cannot be read in the session", it->ci.path);
	return AL_ERR_PATH;
}

/*
 * A file or directory of the session that cannot be read here (a chmod
 * 000 or 200 of the agent's, as an ordinary user): "unreadable PATH
 * (mode M)", what it holds unseen, which commit refuses by that rule;
 * before, the diff failed ("cannot be read in the session") and the
 * person could only discard the whole session.
 */
static void
unreadable_line(FILE *fp, const struct item *it)
{
	fputs(it->ci.kind == WP_DIR ? "unreadable directory " : "unreadable ",
	    fp);
	put_vis(fp, it->ci.path);
	fprintf(fp, "%s (mode %04o): not shown, and commit refuses it\n",
	    it->ci.kind == WP_DIR ? "/" : "", (unsigned)it->ci.mode);
}

/* One written file: new, modified, renamed. */
static int
file_block(FILE *fp, const struct links *l, struct item *it, int upperfd,
    int rootfd, char *err, size_t errlen)
{
	int newfd, oldfd = -1, old_bin, rc = 0, config;

	if (it->ci.unreadable) {
		unreadable_line(fp, it);
		return 0;
	}
	if ((newfd = open_beneath(upperfd, it->ci.path)) == -1)
		return unopened_block(fp, it, upperfd, err, errlen);
	if (it->rename_from != NULL) {
		fputs("diff --airlock a/", fp);
		put_vis(fp, it->rename_from);
		fputs(" b/", fp);
		put_vis(fp, it->ci.path);
		fputs("\nrename from ", fp);
		put_vis(fp, it->rename_from);
		fputs("\nrename to ", fp);
		put_vis(fp, it->ci.path);
		fputc('\n', fp);
		(void)runs_on(fp, l, it->ci.path, 0);
		close(newfd);
		return 0;
	}
	header(fp, it->ci.path);
	config = runs_on(fp, l, it->ci.path, 0);
	if (it->real && S_ISREG(it->rst.st_mode)) {
		/* Never shown as a new file: what it had would be unseen. */
		if ((oldfd = open_checkout_file(rootfd, it->ci.path)) == -1) {
			snprintf(err, errlen,
			    "%s: cannot be read in the checkout: %s",
			    it->ci.path, strerror(errno));
			close(newfd);
			return AL_ERR_PATH;
		}
		if ((it->rst.st_mode & 07777) != it->ci.mode)
			fprintf(fp, "old mode %06o\nnew mode %06o\n",
			    (unsigned)(S_IFREG | (it->rst.st_mode & 07777)),
			    (unsigned)(S_IFREG | it->ci.mode));
	} else {
		if (it->real)
			fputs("(replaces a non-file)\n", fp);
		fprintf(fp, "new file mode %06o\n",
		    (unsigned)(S_IFREG | it->ci.mode));
	}
	rc = put_sha256(fp, it->ci.path, newfd, err, errlen);
	old_bin = oldfd != -1 && is_binary(oldfd);
	/*
	 * An edit of a text file is shown whatever the new bytes are: a
	 * script made binary (a byte that is not UTF-8 beside a NUL in a
	 * comment, which bash and node run past) hid the lines added
	 * after it.  And a binary file is binary only while it stays one:
	 * a vendored tool (an ELF the build runs) made a shell script
	 * showed as "Binary files ... differ", its curl | sh unseen.
	 * Nor is a file that configures what a tool runs ever binary:
	 * npm read an .npmrc that began as a PNG does past its first
	 * bytes to its script-shell.
	 */
	if (rc == 0 && config && (oldfd == -1 || old_bin))
		rc = oldfd == -1
		    ? new_file_diff(fp, it->ci.path, newfd, err, errlen)
		    : run_diff(fp, it->ci.path, oldfd, newfd, err, errlen);
	else if (rc == 0 && (oldfd == -1 || old_bin) && is_binary(newfd)) {
		fputs("Binary files ", fp);
		fputs(oldfd != -1 ? "a/" : "/dev/null", fp);
		if (oldfd != -1)
			put_vis(fp, it->ci.path);
		fputs(" and b/", fp);
		put_vis(fp, it->ci.path);
		fputs(" differ\n", fp);
	} else if (rc == 0 && old_bin) {
		fputs("Binary file a/", fp);
		put_vis(fp, it->ci.path);
		fputs(" replaced by text, shown whole\n", fp);
		rc = new_file_diff(fp, it->ci.path, newfd, err, errlen);
	} else if (rc == 0 && oldfd == -1)
		rc = new_file_diff(fp, it->ci.path, newfd, err, errlen);
	else if (rc == 0)
		rc = run_diff(fp, it->ci.path, oldfd, newfd, err, errlen);
	if (oldfd != -1)
		close(oldfd);
	close(newfd);
	return rc;
}

static const char *
special_name(enum wp_kind k)
{
	return k == WP_FIFO ? "fifo" : k == WP_SOCKET ? "socket" : "device";
}

int
cowdiff_text(const struct changeset *cs, int upperfd, int rootfd, char **out,
    size_t *outlen, char *err, size_t errlen)
{
	struct links links = { NULL, 0, 0 };
	struct item *v;
	size_t n = changeset_count(cs), i;
	FILE *fp;
	int rc;

	*out = NULL;
	*outlen = 0;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		(void)changeset_item(cs, i, &v[i].ci);
		/* As the set was collected: no symlink of the checkout
		 * followed. */
		v[i].real =
		    path_lstat_beneath(rootfd, v[i].ci.path, &v[i].rst) == 0;
	}
	qsort(v, n, sizeof(*v), cmp_items);
	if ((rc = links_collect(&links, v, n, rootfd, err, errlen)) != 0) {
		links_free(&links);
		free(v);
		return rc;
	}
	find_renames(v, n, upperfd, rootfd);
	if ((fp = open_memstream(out, outlen)) == NULL) {
		links_free(&links);
		free(v);
		snprintf(err, errlen, "out of memory");
		return AL_ERR_ALLOC;
	}
	for (i = 0; i < n && rc == 0; i++) {
		struct item *it = &v[i];

		if (it->hidden)
			continue;
		switch (it->ci.kind) {
		case WP_FILE:
			rc = file_block(
			    fp, &links, it, upperfd, rootfd, err, errlen);
			break;
		case WP_SYMLINK:
			header(fp, it->ci.path);
			(void)runs_on(fp, &links, it->ci.path, 1);
			fputs("symlink ", fp);
			put_vis(fp, it->ci.path);
			fputs(" -> ", fp);
			put_vis(fp, it->ci.target);
			fputc('\n', fp);
			break;
		case WP_DIR:
			if (it->ci.unreadable)
				unreadable_line(fp, it);
			else if (it->ci.op == CHANGESET_OP_MKDIR) {
				fputs("new directory ", fp);
				put_vis(fp, it->ci.path);
				fprintf(
				    fp, "/ mode %04o\n", (unsigned)it->ci.mode);
			} else {
				fputs("directory mode ", fp);
				put_vis(fp, it->ci.path);
				fprintf(fp, "/ %04o -> %04o\n",
				    (unsigned)(it->rst.st_mode & 07777),
				    (unsigned)it->ci.mode);
			}
			break;
		case WP_DELETE:
			if (it->real && S_ISDIR(it->rst.st_mode)) {
				fputs("deleted directory ", fp);
				put_vis(fp, it->ci.path);
				fputs("/\n", fp);
				break;
			}
			header(fp, it->ci.path);
			if (it->real && S_ISLNK(it->rst.st_mode))
				fputs("deleted symlink\n", fp);
			else
				fprintf(fp, "deleted file mode %06o\n",
				    (unsigned)(S_IFREG |
					(it->real ? it->rst.st_mode & 07777
						  : 0)));
			break;
		case WP_FIFO:
		case WP_SOCKET:
		case WP_DEVICE:
			fputs("special file ", fp);
			put_vis(fp, it->ci.path);
			fprintf(fp, " (%s)\n", special_name(it->ci.kind));
			break;
		}
	}
	if (fclose(fp) == EOF && rc == 0) {
		snprintf(err, errlen, "out of memory");
		rc = AL_ERR_ALLOC;
	}
	links_free(&links);
	free(v);
	if (rc != 0) {
		free(*out);
		*out = NULL;
		*outlen = 0;
	}
	return rc;
}
