/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * seccomp: hands the policy's rule table to libseccomp and keeps the
 * resulting BPF program.  The program is compiled once per profile and
 * process, in the parent, so that the child only calls seccomp(2).
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "policy/seccomp_policy.h"
#include "policy/syscalls.h"
#include "runner/runner.h"
#include "runner/runner_int.h"
#ifndef AIRLOCK_SECCOMP_GEN
#include "runner/seccomp_prebuilt.h"
#endif

static uint32_t
to_scmp(struct scp_action a)
{
	switch (a.kind) {
	case SCP_ALLOW:
		return SCMP_ACT_ALLOW;
	case SCP_ERRNO:
		return SCMP_ACT_ERRNO(a.err);
	case SCP_KILL_PROCESS:
		break;
	}
	return SCMP_ACT_KILL_PROCESS;
}

static enum scmp_compare
to_op(enum scp_op op)
{
	switch (op) {
	case SCP_OP_EQ:
		return SCMP_CMP_EQ;
	case SCP_OP_GT:
		return SCMP_CMP_GT;
	case SCP_OP_MASKED_EQ:
		break;
	}
	return SCMP_CMP_MASKED_EQ;
}

/* 1 if |name| is among allow[0..nallow). */
static int
allowed(const char *name, const char *const *allow, size_t nallow)
{
	size_t i;

	for (i = 0; i < nallow; i++)
		if (strcmp(name, allow[i]) == 0)
			return 1;
	return 0;
}

/*
 * Builds a libseccomp filter from |p|, with the rules for the names in
 * allow[0..nallow) replaced by an allow; NULL with err filled on failure.
 */
static scmp_filter_ctx
build(const struct seccomp_policy *p, const char *const *allow,
    size_t nallow, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	struct scmp_arg_cmp cmp;
	const struct scp_rule *r;
	size_t i;
	int nr, rc;

	if ((ctx = seccomp_init(to_scmp(p->default_action))) == NULL) {
		snprintf(err, errlen, "seccomp_init failed");
		return NULL;
	}
	/* Foreign ABIs (i386 via int 0x80, x32) are killed outright. */
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) != 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) != 0) {
		snprintf(err, errlen, "seccomp_attr_set: %s", strerror(-rc));
		goto fail;
	}
	for (i = 0; i < p->nrules; i++) {
		r = &p->rules[i];
		if ((nr = syscalls_resolve(r->syscall)) ==
		    __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		if (allowed(r->syscall, allow, nallow))
			continue;
		if (r->has_cond) {
			memset(&cmp, 0, sizeof(cmp));
			cmp.arg = r->cond.arg;
			cmp.op = to_op(r->cond.op);
			if (r->cond.op == SCP_OP_MASKED_EQ) {
				cmp.datum_a = r->cond.mask;
				cmp.datum_b = r->cond.datum;
			} else
				cmp.datum_a = r->cond.datum;
			rc = seccomp_rule_add_exact_array(ctx,
			    to_scmp(r->action), nr, 1, &cmp);
		} else
			rc = seccomp_rule_add_exact(ctx, to_scmp(r->action),
			    nr, 0);
		if (rc != 0) {
			snprintf(err, errlen, "seccomp rule for %s: %s",
			    r->syscall, strerror(-rc));
			goto fail;
		}
	}
	if (p->default_action.kind == SCP_ALLOW &&
	    syscalls_refuse_unaudited(ctx, err, errlen) != 0)
		goto fail;
	/* Under an allowlist profile the name needs a rule of its own. */
	if (p->default_action.kind != SCP_ALLOW)
		for (i = 0; i < nallow; i++) {
			if ((nr = syscalls_resolve(allow[i])) ==
			    __NR_SCMP_ERROR)
				continue;
			if ((rc = seccomp_rule_add_exact(ctx, SCMP_ACT_ALLOW,
			    nr, 0)) != 0) {
				snprintf(err, errlen, "seccomp rule for %s: %s",
				    allow[i], strerror(-rc));
				goto fail;
			}
		}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

/* Exports the program of |ctx| into a heap buffer. */
static struct sock_fprog *
export(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	struct sock_fprog *prog = NULL;
	struct stat st;
	void *buf = NULL;
	int fd, rc;

	if ((fd = memfd_create("airlock-seccomp", MFD_CLOEXEC)) == -1) {
		snprintf(err, errlen, "memfd_create: %s", strerror(errno));
		return NULL;
	}
	if ((rc = seccomp_export_bpf(ctx, fd)) != 0) {
		snprintf(err, errlen, "seccomp_export_bpf: %s", strerror(-rc));
		goto out;
	}
	if (fstat(fd, &st) == -1 || st.st_size == 0 ||
	    st.st_size % sizeof(struct sock_filter) != 0 ||
	    st.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		snprintf(err, errlen, "seccomp program has a bad size");
		goto out;
	}
	if ((buf = malloc(st.st_size)) == NULL ||
	    (prog = calloc(1, sizeof(*prog))) == NULL ||
	    pread(fd, buf, st.st_size, 0) != st.st_size) {
		snprintf(err, errlen, "reading the seccomp program failed");
		free(buf);
		free(prog);
		prog = NULL;
		goto out;
	}
	prog->len = st.st_size / sizeof(struct sock_filter);
	prog->filter = buf;
out:
	close(fd);
	return prog;
}

#ifndef AIRLOCK_SECCOMP_GEN
/*
 * The program tools/seccomp_gen compiled for |idx| at build time, when
 * this is the architecture and the libseccomp version it was compiled
 * with (another version may know other syscall names); else NULL.
 */
static struct sock_fprog prebuilt_progs[4] = {
	{ sizeof(prebuilt_default) / sizeof(prebuilt_default[0]),
	  prebuilt_default },
	{ sizeof(prebuilt_strict) / sizeof(prebuilt_strict[0]),
	  prebuilt_strict },
	{ sizeof(prebuilt_default_host) / sizeof(prebuilt_default_host[0]),
	  prebuilt_default_host },
	{ sizeof(prebuilt_strict_host) / sizeof(prebuilt_strict_host[0]),
	  prebuilt_strict_host },
};

static struct sock_fprog *
prebuilt(unsigned idx)
{
	const struct scmp_version *v = seccomp_version();

	if (seccomp_arch_native() != PREBUILT_ARCH || v == NULL ||
	    v->major != PREBUILT_LIBSECCOMP_MAJOR ||
	    v->minor != PREBUILT_LIBSECCOMP_MINOR ||
	    v->micro != PREBUILT_LIBSECCOMP_MICRO)
		return NULL;
	return &prebuilt_progs[idx];
}
#endif

int
runner_seccomp_is_prebuilt(const struct sock_fprog *prog)
{
#ifndef AIRLOCK_SECCOMP_GEN
	return prog >= &prebuilt_progs[0] && prog <= &prebuilt_progs[3];
#else
	(void)prog;
	return 0;
#endif
}

const struct sock_fprog *
runner_seccomp_program(const struct sandbox_policy *sp, char *err,
    size_t errlen)
{
	static struct sock_fprog *cache[4];
	struct seccomp_policy *p;
	scmp_filter_ctx ctx;
	unsigned idx = (sp->seccomp == SECCOMP_PROFILE_STRICT ? 1 : 0) +
	    (seccomp_policy_refuses_special_bits(sp) ? 2 : 0);

	if (cache[idx] != NULL)
		return cache[idx];
#ifndef AIRLOCK_SECCOMP_GEN
	/* Compiled at build time: 0.3 ms of libseccomp less per process. */
	if ((cache[idx] = prebuilt(idx)) != NULL)
		return cache[idx];
#endif
	if (seccomp_policy_compile(sp, &p) != 0) {
		snprintf(err, errlen, "out of memory compiling seccomp");
		return NULL;
	}
	ctx = build(p, NULL, 0, err, errlen);
	seccomp_policy_free(p);
	if (ctx == NULL)
		return NULL;
	cache[idx] = export(ctx, err, errlen);
	seccomp_release(ctx);
	return cache[idx];
}

int
runner_seccomp_check_allow(const char *const *allow, size_t nallow,
    char *err, size_t errlen)
{
	size_t i, j;

	for (i = 0; i < nallow; i++) {
		if (allow[i] == NULL) {
			snprintf(err, errlen, "allowed syscall %zu is NULL", i);
			return AL_ERR_INTERNAL;
		}
		for (j = 0; seccomp_denied_syscalls[j] != NULL; j++)
			if (strcmp(allow[i], seccomp_denied_syscalls[j]) == 0)
				break;
		if (seccomp_denied_syscalls[j] == NULL) {
			snprintf(err, errlen, "cannot allow the syscall %.64s: "
			    "it is not on the seccomp deny list", allow[i]);
			return AL_ERR_DENIED;
		}
		if (syscalls_resolve(allow[i]) == __NR_SCMP_ERROR) {
			snprintf(err, errlen, "cannot allow the syscall %.64s: "
			    "unknown on this architecture", allow[i]);
			return AL_ERR_UNSUPPORTED;
		}
	}
	return 0;
}

struct sock_fprog *
runner_seccomp_program_allowing(const struct sandbox_policy *sp,
    const char *const *allow, size_t nallow, char *err, size_t errlen)
{
	struct sock_fprog *prog;
	struct seccomp_policy *p;
	scmp_filter_ctx ctx;

	if (runner_seccomp_check_allow(allow, nallow, err, errlen) != 0)
		return NULL;
	if (seccomp_policy_compile(sp, &p) != 0) {
		snprintf(err, errlen, "out of memory compiling seccomp");
		return NULL;
	}
	ctx = build(p, allow, nallow, err, errlen);
	seccomp_policy_free(p);
	if (ctx == NULL)
		return NULL;
	prog = export(ctx, err, errlen);
	seccomp_release(ctx);
	return prog;
}

void
runner_seccomp_program_free(struct sock_fprog *prog)
{
	if (prog == NULL)
		return;
	free(prog->filter);
	free(prog);
}

size_t
runner_seccomp_retarget(struct sock_filter *f, size_t len, uint32_t from,
    uint32_t to)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (f[i].code == (BPF_RET | BPF_K) && f[i].k == from) {
			f[i].k = to;
			n++;
		}
	return n;
}

/*
 * The kernel does not tell a parent which call a seccomp kill was for,
 * but it logs each SECCOMP_RET_KILL_PROCESS (rate-limited) to the kernel
 * ring buffer: "audit: type=1326 ... uid=U ... sig=31 arch=A syscall=N".
 * |kmsg_fd| was opened on /dev/kmsg and moved to its end when the run
 * started, so only this run's window is read: the last kill of |uid| by a
 * process younger than the sandbox's init (host pid above |after|): a
 * record an earlier run's kill printed late is not this run's.
 */
int
runner_seccomp_culprit(int kmsg_fd, uid_t uid, pid_t after, char *out,
    size_t outlen, struct runner_denial *d)
{
	char rec[2048], key[32], *s, *name;
	unsigned long arch = 0, found_arch = 0;
	long nr = -1, found_nr = -1, pid;
	ssize_t n;

	if (kmsg_fd == -1)
		return -1;
	snprintf(key, sizeof(key), " uid=%u ", (unsigned)uid);
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n == -1 && errno == EPIPE)
			continue;	/* overwritten record */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, "type=1326") == NULL ||
		    strstr(rec, " sig=31 ") == NULL || strstr(rec, key) == NULL)
			continue;
		if ((s = strstr(rec, " pid=")) == NULL ||
		    sscanf(s, " pid=%ld", &pid) != 1 || pid <= (long)after)
			continue;
		if ((s = strstr(rec, " arch=")) == NULL ||
		    sscanf(s, " arch=%lx", &arch) != 1 ||
		    (s = strstr(rec, " syscall=")) == NULL ||
		    sscanf(s, " syscall=%ld", &nr) != 1)
			continue;
		found_nr = nr;
		found_arch = arch;
	}
	if (found_nr < 0)
		return -1;
	if (found_arch == SCMP_ARCH_X86_64 && (found_nr & 0x40000000)) {
		/* Named as the native call of that number (x32's own calls,
		 * 512 on, have none): libseccomp's x32 table names ioctl
		 * 514, not 16. */
		name = syscalls_name(SCMP_ARCH_X86_64,
		    (int)(found_nr & ~0x40000000L));
		snprintf(out, outlen, "x32 ABI system call %ld (%s)", found_nr,
		    name != NULL ? name : "?");
		snprintf(d->syscall, sizeof(d->syscall), "x32:%s",
		    name != NULL ? name : "?");
	} else {
		name = syscalls_name(found_arch, (int)found_nr);
		snprintf(out, outlen, "%s system call %ld (%s)",
		    found_arch == SCMP_ARCH_X86_64 ? "native" :
		    found_arch == SCMP_ARCH_X86 ? "i386 ABI" : "foreign ABI",
		    found_nr, name != NULL ? name : "?");
		/* A foreign ABI's call is named with its ABI: no manifest
		 * key can allow it. */
		snprintf(d->syscall, sizeof(d->syscall), "%s%s",
		    found_arch == SCMP_ARCH_X86_64 ? "" :
		    found_arch == SCMP_ARCH_X86 ? "i386:" : "foreign:",
		    name != NULL ? name : "?");
	}
	d->layer = RUNNER_DENY_SYSCALL;
	snprintf(d->source, sizeof(d->source), "seccomp");
	d->nr = (int)found_nr;
	free(name);
	return 0;
}
