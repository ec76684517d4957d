#include "config.h"

#include <string.h>

#include "common/util.h"
#include "policy/sandbox_defaults.h"

static char **
strv(const char *const *src, size_t *n)
{
	char **v;
	size_t i;

	for (*n = 0; src[*n] != NULL; (*n)++)
		;
	v = xcalloc(*n + 1, sizeof(*v));
	for (i = 0; i < *n; i++)
		v[i] = xstrdup(src[i]);
	return v;
}

void
sandbox_policy_init_defaults(struct sandbox_policy *p)
{
	static const char *const ro[] = {
		"/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc", NULL
	};
	static const char *const prot[] = { ".git", NULL };
	static const char *const none[] = { NULL };

	memset(p, 0, sizeof(*p));
	p->uid = 65534;
	p->gid = 65534;
	p->read_only = strv(ro, &p->nread_only);
	p->deny_read = strv(none, &p->ndeny_read);
	p->protected = strv(prot, &p->nprotected);
	p->network = 0;
	p->seccomp = SECCOMP_PROFILE_DEFAULT;
	p->landlock = 1;
	p->workspace = WORKSPACE_DIRECT;
	p->limits.cpu_seconds = 60;
	p->limits.address_space_mb = 0;
	p->limits.file_size_mb = 1024;
	p->limits.open_files = 256;
	p->limits.processes = 256;
	p->limits.memory_mb = 1024;
	p->limits.cpu_percent = 100;
	p->limits.tmp_size_mb = 64;
	p->limits.output_bytes = 1048576;
}
