/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * audit_fields: runner_start's description of a run (audit_fields.h).
 */
#include "config.h"

#include <string.h>

#include "broker/audit_fields.h"

static json_t *
str_or_mark(const char *s)
{
	json_t *v = json_string(s);

	return v != NULL ? v : json_string("(not UTF-8)");
}

static json_t *
str_array(char *const *v, size_t n, int terminated)
{
	json_t *a;
	size_t i;

	if ((a = json_array()) == NULL)
		return NULL;
	for (i = 0; v != NULL && (terminated ? v[i] != NULL : i < n); i++) {
		if (json_array_append_new(a, str_or_mark(v[i])) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *
audit_fields_argv(char *const *argv)
{
	return str_array(argv, 0, 1);
}

json_t *
audit_fields_env_names(char *const *envp)
{
	const char *eq;
	json_t *a, *v;
	size_t i;

	if ((a = json_array()) == NULL)
		return NULL;
	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		eq = strchr(envp[i], '=');
		v = json_stringn(envp[i],
		    eq != NULL ? (size_t)(eq - envp[i]) : strlen(envp[i]));
		if (v == NULL)
			v = json_string("(not UTF-8)");
		if (json_array_append_new(a, v) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *
audit_fields_sandbox(const struct sandbox_policy *p)
{
	return json_pack("{s:s, s:s, s:b, s:s, s:o*, s:o*, s:o*, s:o*}",
	    "network", p->network ? "proxy" : "none", "seccomp",
	    p->seccomp == SECCOMP_PROFILE_STRICT ? "strict" : "default",
	    "landlock", p->landlock, "workspace",
	    p->workspace_readonly		? "readonly"
		: p->workspace == WORKSPACE_COW ? "cow"
						: "direct",
	    "readOnly", str_array(p->read_only, p->nread_only, 0), "readWrite",
	    str_array(p->read_write, p->nread_write, 0), "denyRead",
	    str_array(p->deny_read, p->ndeny_read, 0), "protected",
	    str_array(p->protected, p->nprotected, 0));
}

json_t *
audit_fields_limits(const struct resource_limits *l)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "cpuSeconds", (json_int_t)l->cpu_seconds, "addressSpaceMb",
	    (json_int_t)l->address_space_mb, "fileSizeMb",
	    (json_int_t)l->file_size_mb, "openFiles", (json_int_t)l->open_files,
	    "processes", (json_int_t)l->processes, "memoryMb",
	    (json_int_t)l->memory_mb, "cpuPercent", (json_int_t)l->cpu_percent,
	    "tmpSizeMb", (json_int_t)l->tmp_size_mb, "outputBytes",
	    (json_int_t)l->output_bytes);
}
