/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * lefthook: the paths a lefthook config names that lefthook reads more
 * commands from (lefthook.dev/configuration): the configs its top-level
 * "extends" merges (a string or a list of strings, each a path or a
 * glob, relative to the working tree's top or absolute), the
 * directories of scripts "source_dir" and "source_dir_local" name, and
 * the file "rc" names, which the hooks lefthook installs source (". RC")
 * before they run it, a shell word as written.  A hook lefthook
 * installed runs them on the host, so policy/githooks.c keeps them with
 * the configs themselves.
 *
 * The text is read as its file's extension says: YAML ("yml", "yaml"),
 * JSON ("json", read as the YAML it is), JSON with comments ("jsonc": the
 * comments are blanked first) or TOML ("toml": the key = value lines
 * before the first table, strings and arrays of strings, read
 * lexically).  A YAML merge key ("<<") brings its mappings' keys in.
 * Other keys, and values of other types under these keys,
 * are passed over.  One config's text only: the caller reads the
 * configs extends names in turn (lefthook merges what they extend with
 * too; policy/githooks.c).
 */
#ifndef AIRLOCK_POLICY_LEFTHOOK_H
#define AIRLOCK_POLICY_LEFTHOOK_H

#include <stddef.h>

enum lefthook_key {
	LEFTHOOK_EXTENDS, /* a config file (or a glob of them) */
	LEFTHOOK_SOURCE_DIR, /* a directory of scripts */
	LEFTHOOK_RC /* a file the hooks source: a shell word */
};

/* Called for each value found; a non-zero return stops the walk. */
typedef int (*lefthook_path_fn)(
    void *arg, enum lefthook_key key, const char *value);

/*
 * Calls |fn| for each value of those keys in the config |text| (|len|
 * bytes, need not be NUL-terminated) whose file name ends in ".|ext|".
 * Returns 0, |fn|'s first non-zero return, or -1 with a message in
 * err[0..errlen) when the text cannot be read as that format (or |ext|
 * is none of them).
 */
int lefthook_paths(const char *text, size_t len, const char *ext,
    lefthook_path_fn fn, void *arg, char *err, size_t errlen);

#endif
