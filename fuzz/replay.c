/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * replay: runs a fuzz target's LLVMFuzzerTestOneInput over its checked-in
 * seed corpus (fuzz/corpus/NAME) and its regression inputs
 * (fuzz/regress/NAME: every crash the fuzzers found), without libFuzzer,
 * so "make check" (and the sanitizer build) replays them with the normal
 * compiler.  A broken invariant aborts, which fails the test.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int LLVMFuzzerInitialize(int *, char ***) __attribute__((weak));

static size_t
replay_dir(const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char path[4096];
	uint8_t *data;
	size_t n = 0;
	ssize_t got;
	int fd;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
		    fstat(fd, &st) == -1) {
			perror(path);
			exit(1);
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		if ((data = malloc((size_t)st.st_size + 1)) == NULL)
			exit(1);
		got = read(fd, data, (size_t)st.st_size);
		close(fd);
		if (got != st.st_size) {
			fprintf(stderr, "%s: short read\n", path);
			exit(1);
		}
		printf("replay %s\n", path);
		fflush(stdout);
		LLVMFuzzerTestOneInput(data, (size_t)st.st_size);
		free(data);
		n++;
	}
	closedir(d);
	return n;
}

int
main(int argc, char **argv)
{
	size_t n;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	n = replay_dir(FUZZ_SRCDIR "/fuzz/corpus/" FUZZ_NAME);
	n += replay_dir(FUZZ_SRCDIR "/fuzz/regress/" FUZZ_NAME);
	printf("%zu inputs replayed through fuzz_%s\n", n, FUZZ_NAME);
	return n > 0 ? 0 : 1;
}
