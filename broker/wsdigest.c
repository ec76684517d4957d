/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "broker/wsdigest.h"
#include "common/errors.h"
#include "common/util.h"

struct walk {
	crypto_hash_sha256_state	 st;
	size_t				 entries;
};

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
hash_str(struct walk *w, const char *s)
{
	crypto_hash_sha256_update(&w->st, (const unsigned char *)s,
	    strlen(s) + 1);
}

/*
 * A regular file's content, segment by segment: each data extent as
 * ('D', offset, length, bytes) and each hole as ('H', offset, length),
 * so that a sparse file costs what it stores, not its apparent size, and
 * no two different contents hash alike.  Filesystems without SEEK_DATA
 * report the whole file as one data extent.
 */
static void
hash_segment(struct walk *w, char kind, off_t off, off_t len)
{
	unsigned char	h[17];
	uint64_t	o = (uint64_t)off, n = (uint64_t)len;

	h[0] = (unsigned char)kind;
	memcpy(h + 1, &o, 8);
	memcpy(h + 9, &n, 8);
	crypto_hash_sha256_update(&w->st, h, sizeof(h));
}

static int
hash_file(struct walk *w, int dirfd, const char *name)
{
	char		buf[65536];
	struct stat	st;
	off_t		off = 0, data, hole, left;
	ssize_t		n;
	int		fd, rc = 0;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK);
	if (fd == -1)
		return AL_ERR_SYSTEM;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return AL_ERR_SYSTEM;
	}
	while (off < st.st_size && rc == 0) {
		if ((data = lseek(fd, off, SEEK_DATA)) == -1)
			data = errno == ENXIO ? st.st_size : off;
		if (data > off)
			hash_segment(w, 'H', off, data - off);
		if (data >= st.st_size)
			break;
		if ((hole = lseek(fd, data, SEEK_HOLE)) == -1 ||
		    hole > st.st_size)
			hole = st.st_size;
		hash_segment(w, 'D', data, hole - data);
		if (lseek(fd, data, SEEK_SET) == -1) {
			rc = AL_ERR_SYSTEM;
			break;
		}
		for (left = hole - data; left > 0; left -= n) {
			n = read(fd, buf, left < (off_t)sizeof(buf) ?
			    (size_t)left : sizeof(buf));
			if (n <= 0) {
				/* Shrunk underneath us: the digest says so. */
				rc = n < 0 ? AL_ERR_SYSTEM : 0;
				hash_segment(w, 'T', hole - left, left);
				break;
			}
			crypto_hash_sha256_update(&w->st, (unsigned char *)buf,
			    (size_t)n);
		}
		off = hole;
	}
	close(fd);
	return rc;
}

static int
walk_dir(struct walk *w, int dirfd, const char *prefix)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL, path[4096], target[4096];
	size_t		 n = 0, i;
	int		 rc = 0, fd;

	if ((fd = dup(dirfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return AL_ERR_SYSTEM;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (prefix[0] == '\0' && strcmp(de->d_name, ".git") == 0))
			continue;
		if (++w->entries > WSDIGEST_MAX_ENTRIES) {
			rc = AL_ERR_LIMIT;
			break;
		}
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (rc == 0 && n > 0)	/* names is NULL when n == 0 */
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && rc == 0; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s%s", prefix, names[i]);
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == -1) {
			rc = errno == ENOENT ? 0 : AL_ERR_SYSTEM;
			continue;
		}
		hash_str(w, path);
		if (S_ISDIR(st.st_mode)) {
			int sub;

			hash_str(w, "d");
			sub = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1) {
				rc = AL_ERR_SYSTEM;
				continue;
			}
			strncat(path, "/", sizeof(path) - strlen(path) - 1);
			rc = walk_dir(w, sub, path);
			close(sub);
		} else if (S_ISREG(st.st_mode)) {
			hash_str(w, (st.st_mode & 0111) ? "x" : "f");
			rc = hash_file(w, dirfd, names[i]);
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t len;

			hash_str(w, "l");
			len = readlinkat(dirfd, names[i], target,
			    sizeof(target) - 1);
			target[len < 0 ? 0 : len] = '\0';
			hash_str(w, target);
		} else
			hash_str(w, "o");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int
wsdigest_compute(int rootfd, char hex[SHA256_HEX_LEN + 1])
{
	struct walk	 w;
	unsigned char	 md[crypto_hash_sha256_BYTES];
	int		 fd, rc;

	memset(&w, 0, sizeof(w));
	crypto_hash_sha256_init(&w.st);
	/* rootfd may be O_PATH: reopen it for reading. */
	if ((fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return AL_ERR_SYSTEM;
	rc = walk_dir(&w, fd, "");
	close(fd);
	crypto_hash_sha256_final(&w.st, md);
	sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, sizeof(md));
	return rc;
}

struct file_entry {
	const char	*path;
	char		 sha[SHA256_HEX_LEN + 1];
};

static int
cmp_entries(const void *a, const void *b)
{
	return strcmp(((const struct file_entry *)a)->path,
	    ((const struct file_entry *)b)->path);
}

void
wsdigest_files(const char *const *paths, const char *const *contents,
    const size_t *lens, size_t n, char hex[SHA256_HEX_LEN + 1])
{
	struct file_entry		*e;
	crypto_hash_sha256_state	 st;
	unsigned char			 md[crypto_hash_sha256_BYTES];
	size_t				 i;

	if (n == 1) {
		if (contents[0] == NULL)
			sha256_hex("", 0, hex);
		else
			sha256_hex(contents[0], lens[0], hex);
		return;
	}
	e = xcalloc(n, sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].path = paths[i];
		if (contents[i] == NULL)
			snprintf(e[i].sha, sizeof(e[i].sha), "-");
		else
			sha256_hex(contents[i], lens[i], e[i].sha);
	}
	qsort(e, n, sizeof(*e), cmp_entries);
	crypto_hash_sha256_init(&st);
	for (i = 0; i < n; i++) {
		crypto_hash_sha256_update(&st, (const unsigned char *)e[i].path,
		    strlen(e[i].path) + 1);
		crypto_hash_sha256_update(&st, (const unsigned char *)e[i].sha,
		    strlen(e[i].sha));
		crypto_hash_sha256_update(&st, (const unsigned char *)"\n", 1);
	}
	crypto_hash_sha256_final(&st, md);
	sodium_bin2hex(hex, SHA256_HEX_LEN + 1, md, sizeof(md));
	free(e);
}
