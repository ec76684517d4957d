/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * airlock suggest SESSION [--manifest M] [--json]
 *     [--apply --plan ID [--allow-weakening]]
 *
 * Reads a session's audit log (verified first: a log that does not
 * verify is refused, as airlock audit verify would), plans the smallest
 * manifest change that would have allowed its sandbox denials
 * (policy/suggest.h), edits the manifest's text (policy/yamledit.h) and
 * prints the change as a unified diff (policy/udiff.h) and its plan id.
 * --apply writes it, only when it is the change the review printed (its
 * plan id: the log and the manifest may have changed since), only after
 * the manifest loader accepts the result, atomically.
 * This file is argument parsing, file access and printing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>
#include <sodium.h>

#include "common/errors.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/util.h"
#include "common/vis.h"
#include "broker/audit.h"
#include "broker/audit_verify.h"
#include "policy/manifest.h"
#include "policy/suggest.h"
#include "policy/udiff.h"
#include "policy/yamledit.h"
#include "supervisor/cli.h"
#include "supervisor/commands.h"
#include "supervisor/hostkey.h"
#include "supervisor/session.h"

#define SUGGEST_MAX_MANIFEST YAMLEDIT_MAX_TEXT

/*
 * |s| escaped for a terminal, line by line (its line breaks are its
 * own), malloc'd: it came from the log, and the agent chose much of it
 * (paths, call ids).  What holds it is printed with vis_fold_printf():
 * a call id padded to the terminal's edge began a row of the diff with
 * the rest of it, "  readWrite:" to the eye, a line of the manifest.
 */
static char *
safe_text(const char *s)
{
	const char *nl;
	char *out = NULL, *v;
	size_t n, outlen = 0;
	FILE *fp;

	if ((fp = open_memstream(&out, &outlen)) == NULL)
		fatal("open_memstream");
	for (; *s != '\0'; s += n) {
		nl = strchr(s, '\n');
		n = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if ((v = vis_dup(s, n, VIS_NOSLASH)) == NULL)
			fatalx("out of memory");
		fputs(v, fp);
		free(v);
		if (nl != NULL) {
			fputc('\n', fp);
			n++;
		}
	}
	if (fclose(fp) == EOF)
		fatalx("out of memory");
	return out;
}

/*
 * SESSION: a session id (STATE/sessions/ID/audit.jsonl), a session
 * directory, or a log file.
 */
static int
find_log(const char *arg, char *out, size_t outlen)
{
	char state[PATH_MAX];
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISREG(st.st_mode)) {
		if (snprintf(out, outlen, "%s", arg) >= (int)outlen)
			goto toolong;
		return 0;
	}
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (snprintf(out, outlen, "%s/audit.jsonl", arg) >= (int)outlen)
			goto toolong;
	} else {
		if (strchr(arg, '/') != NULL || arg[0] == '.' ||
		    arg[0] == '\0') {
			log_warnx("%s: no such session, directory or log", arg);
			return EXIT_NOINPUT;
		}
		if (session_state_dir(state, sizeof(state)) != 0 ||
		    snprintf(out, outlen, "%s/sessions/%s/audit.jsonl", state,
			arg) >= (int)outlen)
			goto toolong;
	}
	if (stat(out, &st) == -1 || !S_ISREG(st.st_mode)) {
		log_warnx(
		    "%s: no such session (airlock sessions lists them)", arg);
		return EXIT_NOINPUT;
	}
	return 0;
toolong:
	log_warnx("%s: path too long", arg);
	return EXIT_USAGE;
}

/*
 * Verifies the log, then opens it for reading and parses its first
 * record (session_start) into *first.  Returns 0 (*fpp open, positioned
 * after line 1) or an exit status, having said why.  The records are
 * read one at a time after that: a long session's log is never held.
 */
static int
open_log(const char *path, FILE **fpp, json_t **first)
{
	unsigned char keys[HOSTKEY_MAX_TRUSTED][32];
	struct audit_verify_result res;
	size_t nkeys, cap = 0;
	ssize_t len;
	char *line = NULL;
	FILE *fp;
	int rc;

	*fpp = NULL;
	*first = NULL;
	if ((fp = fopen(path, "re")) == NULL) {
		log_warn("%s", path);
		return EXIT_NOINPUT;
	}
	nkeys = hostkey_trusted(keys, HOSTKEY_MAX_TRUSTED);
	rc = audit_verify_fp_trusted(fp,
	    nkeys > 0 ? (const unsigned char(*)[32])keys : NULL, nkeys, NULL,
	    &res);
	if (rc < 0) {
		log_warnx("%s: %s", path, al_strerror(rc));
		fclose(fp);
		return EXIT_NOINPUT;
	}
	if (rc == AUDIT_VERIFY_BAD || rc == AUDIT_VERIFY_UNTRUSTED) {
		fclose(fp);
		if (rc == AUDIT_VERIFY_BAD)
			log_warnx("%s does not verify (line %llu: %s): "
				  "refusing to suggest policy from a log that "
				  "may have been edited",
			    path, (unsigned long long)res.bad_line, res.reason);
		else
			log_warnx("%s is not signed by a key this host trusts "
				  "(%s): refusing to suggest policy from it",
			    path, res.reason);
		return 1;
	}
	/* STATE/sessions/ID/audit.jsonl must be ID's own log. */
	if (!session_log_matches(path, res.session)) {
		fclose(fp);
		log_warnx("%s is the log of session %s, in another session's "
			  "directory (moved or replaced): refusing to suggest "
			  "policy from it",
		    path, res.session);
		return 1;
	}
	if (rc == AUDIT_VERIFY_OPEN)
		log_warnx("note: %s has no session_end yet: the session is "
			  "running, crashed or was cut off; using what it "
			  "holds",
		    path);
	rewind(fp);
	if ((len = getline(&line, &cap, fp)) <= 0 ||
	    (*first = audit_record_parse(
		 line, (size_t)len - (line[len - 1] == '\n'))) == NULL) {
		/* It verified a moment ago: it was replaced since. */
		log_warnx("%s: changed while it was read", path);
		free(line);
		fclose(fp);
		return 1;
	}
	free(line);
	*fpp = fp;
	return 0;
}

static char *
read_file(const char *path, size_t *len, struct stat *st)
{
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd;

	/* Never through a link: cmd_suggest() resolved the manifest's. */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode) ||
	    st->st_size > SUGGEST_MAX_MANIFEST) {
		if (errno == 0 || S_ISREG(st->st_mode))
			errno = EFBIG;
		else
			errno = EINVAL;
		close(fd);
		return NULL;
	}
	if ((buf = malloc((size_t)st->st_size + 1)) == NULL)
		fatalx("out of memory");
	while (got < (size_t)st->st_size) {
		n = read(fd, buf + got, (size_t)st->st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/*
 * The plan id: SHA-256 over the manifest's path, its text and the text
 * the change makes, as hex into hex[65].  The review prints it; --apply
 * writes only a change whose id is the one given, so what is written is
 * what was reviewed, byte for byte, even when the log grew in between (a
 * session still running adds denials) or the manifest was edited.
 */
static void
plan_id(const char *path, const char *old, size_t oldlen, const char *new,
    size_t newlen, char hex[65])
{
	static const char tag[] = "airlock suggest plan v1";
	crypto_hash_sha256_state st;
	unsigned char md[32];
	unsigned char n[8];
	size_t i;

	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)tag, sizeof(tag));
	crypto_hash_sha256_update(
	    &st, (const unsigned char *)path, strlen(path) + 1);
	/* Lengths first: no text can pass for another's end. */
	for (i = 0; i < 8; i++)
		n[i] = (unsigned char)((uint64_t)oldlen >> (8 * i));
	crypto_hash_sha256_update(&st, n, sizeof(n));
	crypto_hash_sha256_update(&st, (const unsigned char *)old, oldlen);
	for (i = 0; i < 8; i++)
		n[i] = (unsigned char)((uint64_t)newlen >> (8 * i));
	crypto_hash_sha256_update(&st, n, sizeof(n));
	crypto_hash_sha256_update(&st, (const unsigned char *)new, newlen);
	crypto_hash_sha256_final(&st, md);
	sodium_bin2hex(hex, 65, md, sizeof(md));
}

/*
 * Writes |text| over |path| atomically: a temporary file beside it with
 * the old file's mode and owner, fsync, rename, fsync of the directory.
 * |path| must still be the file that was read (|old|: its device, inode,
 * size and modification time, and |oldtext|'s bytes): a file changed
 * since is not overwritten (EAGAIN).
 */
static int
write_atomic(const char *path, const char *text, size_t len,
    const struct stat *old, const char *oldtext, size_t oldlen)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	struct stat now;
	size_t off = 0, curlen;
	ssize_t n;
	char *cur;
	int fd, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.suggest.XXXXXX", path) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1)
		return -1;
	if (fchmod(fd, old->st_mode & 07777) == -1 ||
	    (fchown(fd, old->st_uid, old->st_gid) == -1 && errno != EPERM))
		goto fail;
	while (off < len) {
		if ((n = write(fd, text + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)n;
	}
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	/* The file reviewed, still: not edited or replaced since. */
	if ((cur = read_file(path, &curlen, &now)) == NULL)
		goto fail;
	if (now.st_dev != old->st_dev || now.st_ino != old->st_ino ||
	    now.st_size != old->st_size ||
	    now.st_mtim.tv_sec != old->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != old->st_mtim.tv_nsec || curlen != oldlen ||
	    memcmp(cur, oldtext, oldlen) != 0) {
		free(cur);
		errno = EAGAIN;
		goto fail;
	}
	free(cur);
	if (rename(tmp, path) == -1)
		goto fail;
	snprintf(dir, sizeof(dir), "%s", path);
	if ((dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) !=
	    -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail : {
	int saved = errno;

	if (fd != -1)
		close(fd);
	unlink(tmp);
	errno = saved;
}
	return -1;
}

int
cmd_suggest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ "apply", no_argument, NULL, 'a' },
		{ "allow-weakening", no_argument, NULL, 'W' },
		{ "json", no_argument, NULL, 'j' },
		{ "plan", required_argument, NULL, 'p' }, { NULL, 0, NULL, 0 }
	};
	char logpath[PATH_MAX], err[1024], statedir[PATH_MAX];
	char cfgdir[PATH_MAX], digest[65], mbuf[PATH_MAX], plan_hex[65];
	char rbuf[PATH_MAX];
	const char *mpath = NULL, *session, *want_digest, *stdirs[2];
	const char *want_plan = NULL;
	unsigned char md[32];
	struct suggest_ctx ctx;
	struct suggest_plan *plan = NULL;
	struct yamledit *ye = NULL;
	struct manifest *m = NULL, *nm = NULL;
	struct stat st;
	json_t *first = NULL, *sf, *rec, *j;
	struct suggest_planner *sp = NULL;
	FILE *logfp = NULL;
	char *line = NULL;
	size_t linecap = 0;
	ssize_t llen;
	char *text = NULL, *diff = NULL;
	const char *newtext;
	size_t len, newlen, i, nstdirs = 0, width;
	int ch, apply = 0, allow_weak = 0, json = 0, explicit = 0, rc;
	int status = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "m:", opts, NULL)) != -1) {
		switch (ch) {
		case 'm':
			mpath = optarg;
			explicit = 1;
			break;
		case 'a':
			apply = 1;
			break;
		case 'W':
			allow_weak = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'p':
			want_plan = optarg;
			break;
		default:
			cli_usage("suggest");
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		log_warnx(argc - optind == 0 ? "a SESSION is required"
					     : "one SESSION only");
		cli_usage("suggest");
		return EXIT_USAGE;
	}
	if (allow_weak && !apply) {
		log_warnx("--allow-weakening goes with --apply");
		cli_usage("suggest");
		return EXIT_USAGE;
	}
	if (apply != (want_plan != NULL)) {
		log_warnx(apply ? "--apply needs --plan ID, the plan id the "
				  "review printed: only the change reviewed is "
				  "written"
				: "--plan goes with --apply");
		cli_usage("suggest");
		return EXIT_USAGE;
	}
	session = argv[optind];
	if ((rc = find_log(session, logpath, sizeof(logpath))) != 0)
		return rc;
	if ((rc = open_log(logpath, &logfp, &first)) != 0)
		return rc;
	sf = json_object_get(first, "fields");
	want_digest = json_string_value(json_object_get(sf, "manifestDigest"));
	if (mpath == NULL) {
		const char *rpath =
		    json_string_value(json_object_get(sf, "manifest"));
		const char *cwd = json_string_value(json_object_get(sf, "cwd"));

		/* airlock exec's built-in policy is no file either. */
		if (rpath == NULL || strcmp(rpath, "<default>") == 0 ||
		    strcmp(rpath, SESSION_NO_MANIFEST) == 0) {
			log_warnx("%s: the session %s: name the file to edit "
				  "with --manifest",
			    logpath,
			    rpath == NULL
				? "recorded no manifest"
				: "ran the built-in default manifest");
			status = EXIT_USAGE;
			goto done;
		}
		/* A relative path was relative to the session's cwd. */
		if (rpath[0] != '/' && cwd != NULL && cwd[0] == '/') {
			if (snprintf(mbuf, sizeof(mbuf), "%s/%s", cwd, rpath) >=
			    (int)sizeof(mbuf)) {
				log_warnx("%s: path too long", rpath);
				status = EXIT_USAGE;
				goto done;
			}
			rpath = mbuf;
		}
		mpath = rpath;
	}
	/*
	 * A manifest named through a link (a project's link to its team's
	 * policy) is resolved once, here: the review names the file that
	 * will change, the plan id binds to it, and --apply writes it beside
	 * itself.  rename(2) over the link replaced the link with a copy,
	 * the file it led to unchanged.  read_file() opens with O_NOFOLLOW:
	 * a link put in its place since is refused, not followed.
	 */
	if (lstat(mpath, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (realpath(mpath, rbuf) == NULL) {
			log_warn("%s", mpath);
			status = EXIT_NOINPUT;
			goto done;
		}
		log_warnx("note: %s is a symbolic link: the change is to %s",
		    mpath, rbuf);
		mpath = rbuf;
	}
	if ((text = read_file(mpath, &len, &st)) == NULL) {
		log_warn("%s", mpath);
		status = EXIT_NOINPUT;
		goto done;
	}
	/* The manifest as read: its denyRead and protected lists count. */
	if (manifest_load_buffer(mpath, text, len, &m, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		status = EXIT_CONFIG;
		goto done;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.home = getenv("HOME");
	ctx.workspace = json_string_value(json_object_get(sf, "workspace"));
	ctx.deny_read = (const char *const *)m->sandbox.deny_read;
	ctx.ndeny_read = m->sandbox.ndeny_read;
	ctx.protected = (const char *const *)m->sandbox.protected;
	ctx.nprotected = m->sandbox.nprotected;
	if (paths_state_dir(statedir, sizeof(statedir)) == 0)
		stdirs[nstdirs++] = statedir;
	if (paths_config_dir(cfgdir, sizeof(cfgdir)) == 0)
		stdirs[nstdirs++] = cfgdir;
	ctx.state_dirs = stdirs;
	ctx.nstate_dirs = nstdirs;
	ctx.agent_home = m->agent.home;
	if (suggest_planner_new(&ctx, &sp) != 0)
		fatalx("out of memory");
	rc = suggest_planner_feed(sp, first, err, sizeof(err));
	while (rc == 0 && (llen = getline(&line, &linecap, logfp)) > 0) {
		if ((rec = audit_record_parse(line,
			 (size_t)llen - (line[llen - 1] == '\n'))) == NULL)
			continue;
		rc = suggest_planner_feed(sp, rec, err, sizeof(err));
		json_decref(rec);
	}
	if (rc == 0) {
		rc = suggest_planner_finish(sp, &plan);
		sp = NULL;
		if (rc != 0)
			snprintf(err, sizeof(err), "%s", al_strerror(rc));
	}
	if (rc != 0) {
		log_warnx("%s: %s", logpath, err);
		status = 1;
		goto done;
	}
	if (yamledit_new(text, len, &ye, err, sizeof(err)) != 0) {
		log_warnx("%s: %s", mpath, err);
		status = EXIT_CONFIG;
		goto done;
	}
	if ((rc = suggest_apply(plan, ye, err, sizeof(err))) < 0) {
		log_warnx("%s: cannot edit: %s", mpath, err);
		status = EXIT_CONFIG;
		goto done;
	}
	newtext = yamledit_text(ye, &newlen);
	if (udiff_make(text, len, newtext, newlen, mpath, mpath, &diff) != 0)
		fatalx("cannot make the diff");
	plan_id(mpath, text, len, newtext, newlen, plan_hex);
	width = term_columns(STDERR_FILENO);
	for (i = 0; i < plan->n; i++)
		if (plan->changes[i].weakens != NULL) {
			char *k = safe_text(plan->changes[i].key);
			char *w = safe_text(plan->changes[i].weakens);

			if (vis_fold_printf(
				stderr, width, "WEAKENS: %s: %s\n", k, w) == -1)
				fatalx("out of memory");
			free(k);
			free(w);
		}
	width = term_columns(STDOUT_FILENO);
	if (json) {
		j = suggest_plan_json(plan);
		if (j == NULL)
			fatalx("out of memory");
		json_object_set_new(j, "log", json_string(logpath));
		json_object_set_new(j, "manifest", json_string(mpath));
		json_object_set_new(j, "diff", json_string(diff));
		if (diff[0] != '\0')
			json_object_set_new(j, "plan", json_string(plan_hex));
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(j);
	} else if (plan->denials == 0) {
		printf(
		    "no sandbox denials in %s: nothing to suggest\n", logpath);
	} else {
		if (diff[0] == '\0')
			printf("# %zu denial(s); the manifest already allows "
			       "everything that can be allowed\n",
			    plan->denials);
		else {
			char *d = safe_text(diff);

			if (vis_fold_printf(stdout, width, "%s", d) == -1)
				fatalx("out of memory");
			free(d);
		}
		if (plan->dropped > 0)
			printf("# note: %zu denial(s) past the planner's caps "
			       "were left out: review the log (airlock audit "
			       "show --event sandbox_denial)\n",
			    plan->dropped);
		for (i = 0; i < plan->n; i++)
			if (plan->changes[i].kind == SUGGEST_NOTE) {
				char *r = safe_text(plan->changes[i].reason);

				if (vis_fold_printf(
					stdout, width, "# %s\n", r) == -1)
					fatalx("out of memory");
				free(r);
			}
		if (diff[0] != '\0')
			printf("# plan: %s (airlock suggest --apply --plan "
			       "ID writes exactly this change)\n",
			    plan_hex);
	}
	if (!apply || diff[0] == '\0')
		goto done;
	/* Only the change the human reviewed: not one the log grew into. */
	if (strcmp(plan_hex, want_plan) != 0) {
		log_warnx("not applied: the change is not the one reviewed "
			  "(its plan id is %s, not the one given): the log or "
			  "the manifest changed since; review the diff above",
		    plan_hex);
		status = 1;
		goto done;
	}
	/* --apply: only as recorded, only what airlock check accepts. */
	crypto_hash_sha256(md, (const unsigned char *)text, len);
	sodium_bin2hex(digest, sizeof(digest), md, sizeof(md));
	if (!explicit &&
	    (want_digest == NULL || strcmp(digest, want_digest) != 0)) {
		log_warnx(
		    "not applied: %s changed since the session started "
		    "(its digest is not the one the log recorded); review "
		    "the diff and name the file with --manifest to apply "
		    "anyway",
		    mpath);
		status = 1;
		goto done;
	}
	if (suggest_plan_weakens(plan) > 0 && !allow_weak) {
		log_warnx(
		    "not applied: %zu change(s) weaken a protected "
		    "class (WEAKENS above); --allow-weakening applies them",
		    suggest_plan_weakens(plan));
		status = 1;
		goto done;
	}
	if (manifest_load_buffer(
		mpath, newtext, newlen, &nm, err, sizeof(err)) != 0) {
		log_warnx("not applied: the result does not pass airlock "
			  "check: %s",
		    err);
		status = EXIT_CONFIG;
		goto done;
	}
	if (write_atomic(mpath, newtext, newlen, &st, text, len) != 0) {
		if (errno == EAGAIN)
			log_warnx("not applied: %s changed while it was "
				  "applied",
			    mpath);
		else
			log_warn("not applied: %s", mpath);
		status = 1;
		goto done;
	}
	fprintf(stderr, "airlock suggest: applied to %s\n", mpath);
done:
	manifest_free(nm);
	manifest_free(m);
	yamledit_free(ye);
	suggest_plan_free(plan);
	suggest_planner_free(sp);
	json_decref(first);
	if (logfp != NULL)
		fclose(logfp);
	free(line);
	free(text);
	free(diff);
	return status;
}
