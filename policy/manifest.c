/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * manifest: the manifest's sections, loaded and checked (the tools are
 * manifest_tools.c's, the canonical printer is manifest_print.c).
 *
 * Loading is two steps.  libyaml's event parser builds a small tree of
 * our own (ynode, manifest_yaml.c) that keeps every node's line and column
 * and refuses what we never want to interpret: aliases and anchors
 * (unbounded work and action at a distance), tags, and more than one
 * document.  Then the tree is walked here section by section, each
 * mapping checked against the keys it may hold, so every error can name
 * FILE:LINE:COLUMN and the field's path (tools[2].input.path).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sodium.h>

#include "common/approver_token.h"
#include "common/errors.h"
#include "common/util.h"
#include "policy/manifest.h"
#include "policy/manifest_limits.h"
#include "policy/manifest_int.h"
#include "common/lookalike.h"
#include "policy/shrules.h"
#include "policy/sandbox_defaults.h"
#include "policy/types.h"
#include "proxy/rules.h"

#define MANIFEST_MAX_BYTES	(1024 * 1024)
#define FRAME_MIN		1024
#define FRAME_MAX		(64 * 1024 * 1024)
#define STRING_BOUND_MAX	(64 * 1024 * 1024)
#define ITEMS_BOUND_MAX		65536
#define FIELDS_MAX		64

/* The built-in default manifest, generated from contrib/manifests/default.yaml. */
extern const char	airlock_default_manifest[];
extern const size_t	airlock_default_manifest_len;


int
ident_ok(const char *s, int dots)
{
	size_t i;

	if (s[0] == '\0' || isdigit((unsigned char)s[0]))
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (i >= NAME_MAX_LEN)
			return 0;
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    !(dots && (s[i] == '-' || s[i] == '.')))
			return 0;
	}
	return 1;
}

/*
 * A path, or a shell rule's word, whose letters a reader takes for others
 * (lookalike.h): with ".g<U+0456>thub/workflows" in sandbox.protected, a
 * Cyrillic i, a reviewer read that the CI workflows were protected, and
 * nothing was; a deny rule's "<U+0455>udo" denied no sudo.  Names the
 * character's column where the text stands in the file as it loads.
 */
static int
lookalike_err(struct lctx *c, const struct ynode *n, const char *f,
    const char *noun, const char *names)
{
	struct lookalike la;
	struct ynode pos;
	char reads[256], what[200], where[80];

	if (!lookalike_path(n->s, n->len, &la))
		return 0;
	pos = *n;
	if (n->text_col > 0)
		pos.col = n->text_col + (int)la.index;
	if (la.name[0] >= 'a' && la.name[0] <= 'z')
		snprintf(what, sizeof(what), "U+%04lX (%s)", la.cp, la.name);
	else
		snprintf(what, sizeof(what), "U+%04lX %s", la.cp, la.name);
	if (la.why == LOOKALIKE_MIXED)
		snprintf(where, sizeof(where), "among %s in one word",
		    la.among);
	else if (la.why == LOOKALIKE_WHOLE)
		snprintf(where, sizeof(where), "in a word of look-alikes "
		    "of ASCII letters only");
	else
		snprintf(where, sizeof(where), "a look-alike of ASCII");
	if (la.ascii != 0) {
		lookalike_reads_as(n->s, n->len, reads, sizeof(reads));
		return lctx_err(c, &pos, f, "%s, which reads as \"%c\", %s: "
		    "the %s reads as \"%s\" and %s", what, la.ascii, where,
		    noun, reads, names);
	}
	if (la.why == LOOKALIKE_FORM)
		return lctx_err(c, &pos, f, "%s, a look-alike of ASCII letters "
		    "or digits: the %s %s than it reads as", what, noun, names);
	return lctx_err(c, &pos, f, "%s %s: keep a word to one script, "
	    "where no look-alike of ASCII hides", what, where);
}

int
chk_lookalike(struct lctx *c, const struct ynode *n, const char *f)
{
	return lookalike_err(c, n, f, "path", "names another file");
}

int
chk_lookalike_word(struct lctx *c, const struct ynode *n, const char *f)
{
	return lookalike_err(c, n, f, "word", "matches another command");
}

int
chk_abs_path(struct lctx *c, const struct ynode *n, const char *f)
{
	const char *p;

	if (chk_lookalike(c, n, f) != 0)
		return AL_ERR_FORMAT;
	if (n->s[0] != '/')
		return lctx_err(c, n, f, "expected an absolute path");
	for (p = n->s; (p = strstr(p, "/..")) != NULL; p += 3)
		if (p[3] == '/' || p[3] == '\0')
			return lctx_err(c, n, f, "'..' component");
	return 0;
}

static int
chk_ws_path(struct lctx *c, const struct ynode *n, const char *f)
{
	const char *why;

	if ((why = type_path_syntax_error(n->s, n->len)) != NULL)
		return lctx_err(c, n, f, "not a workspace-relative path: %s", why);
	return chk_lookalike(c, n, f);
}

/* A directory of the agent's home: a relative path ending in "/". */
static int
chk_home_dir(struct lctx *c, const struct ynode *n, const char *f)
{
	if (chk_ws_path(c, n, f) != 0)
		return AL_ERR_FORMAT;
	if (n->len == 0 || n->s[n->len - 1] != '/')
		return lctx_err(c, n, f, "not a directory (ends in /)");
	return 0;
}

/* A dependency file: a workspace-relative path naming a file. */
static int
chk_dependency_file(struct lctx *c, const struct ynode *n, const char *f)
{
	char *s;
	size_t len;

	if (chk_ws_path(c, n, f) != 0)
		return AL_ERR_FORMAT;
	s = xstrdup(n->s);
	len = type_path_normalize(s);
	free(s);
	if (len == 0)
		return lctx_err(c, n, f, "names the workspace itself, not a "
		    "file");
	return 0;
}

int
chk_env_name(struct lctx *c, const struct ynode *n, const char *f)
{
	if (!ident_ok(n->s, 0))
		return lctx_err(c, n, f, "not an environment variable name");
	return 0;
}

static int
chk_hostport(struct lctx *c, const struct ynode *n, const char *f)
{
	const char *colon = strrchr(n->s, ':'), *p;
	char *end;
	long port;

	if (colon == NULL || colon == n->s)
		return lctx_err(c, n, f, "expected host:port");
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno != 0 || port < 1 ||
	    port > 65535 || !isdigit((unsigned char)colon[1]))
		return lctx_err(c, n, f, "port must be 1..65535");
	p = n->s;
	if (p[0] == '[') {
		/* [v6]:port */
		if (colon[-1] != ']')
			return lctx_err(c, n, f, "expected [address]:port");
		for (p++; p < colon - 1; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' &&
			    *p != '.')
				return lctx_err(c, n, f, "bad IPv6 address");
		return 0;
	}
	if (strncmp(p, "*.", 2) == 0)
		p += 2;
	if (p >= colon)
		return lctx_err(c, n, f, "expected host:port");
	for (; p < colon; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
			return lctx_err(c, n, f, "bad host name (a leading \"*.\" "
			    "is the only wildcard)");
	return 0;
}

/*
 * Parses the IP literal of a "host:port" entry into *t; returns 1 for an
 * IP literal, 0 for a name or a wildcard.
 */
static int
hostport_literal(const char *s, struct rules_target *t)
{
	char why[RULES_REASON_MAX];

	if (strncmp(s, "*.", 2) == 0 ||
	    rules_parse_authority(s, strlen(s), 0, t, why, sizeof(why)) != 0)
		return 0;
	return t->family != 0;
}

/*
 * The proxy's own rule syntax ("*.com", "127.1", "1.1.1.1." are refused
 * there): an entry it would refuse makes every run fail, so say it now.
 */
static int
chk_proxy_rule(struct lctx *c, const struct ynode *n, const char *f)
{
	struct rules *r;
	char why[RULES_REASON_MAX];
	int rc;

	if ((r = rules_new()) == NULL)
		return AL_ERR_ALLOC;
	rc = rules_add_host(r, n->s, why, sizeof(why));
	rules_free(r);
	if (rc != 0)
		return lctx_err(c, n, f, "%s", why);
	return 0;
}

/* A "network" entry: a name, or the IP literal of a public address. */
static int
chk_net_host(struct lctx *c, const struct ynode *n, const char *f)
{
	struct rules_target t;
	char desc[RULES_REASON_MAX], list[FIELD_MAX], *dot;
	int rc;

	if (chk_hostport(c, n, f) != 0)
		return AL_ERR_FORMAT;
	if ((rc = chk_proxy_rule(c, n, f)) != 0)
		return rc;
	if (!hostport_literal(n->s, &t) ||
	    rules_classify(t.family, t.addr, desc, sizeof(desc)) ==
	    ADDR_PUBLIC)
		return 0;
	/* "agent.network[2]" -> "agent.allowAddresses" */
	snprintf(list, sizeof(list), "%s", f);
	if ((dot = strrchr(list, '.')) != NULL)
		*dot = '\0';
	else
		list[0] = '\0';
	return lctx_err(c, n, f, "%s is a %s address, reachable only through an "
	    "explicit rule: use %s%sallowAddresses", n->s, desc, list,
	    list[0] != '\0' ? "." : "");
}

/* An "allowAddresses" entry: "IP:PORT" or "[IPv6]:PORT". */
static int
chk_net_address(struct lctx *c, const struct ynode *n, const char *f)
{
	struct rules_target t;

	if (chk_hostport(c, n, f) != 0)
		return AL_ERR_FORMAT;
	if (!hostport_literal(n->s, &t))
		return lctx_err(c, n, f, "expected an IP address and port "
		    "(\"127.0.0.1:8080\", \"[::1]:8080\"); names belong in "
		    "network");
	return chk_proxy_rule(c, n, f);
}

/*
 * The "network" and "allowAddresses" keys of |map| into *na, whose field
 * path is |parent| ("agent", "tools[0]", "checks.unit").  The addresses
 * are appended to the host list as well: the proxy gets one allowlist.
 */
int
parse_net(struct lctx *c, const struct ynode *map, const char *parent,
    struct net_allow *na)
{
	const struct ynode *n;
	char g[FIELD_MAX];
	size_t i;

	if ((n = ynode_get(map, "network")) != NULL &&
	    get_strlist(c, n, fld(g, parent, "network"), chk_net_host,
	    &na->hosts, &na->nhosts) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "allowAddresses")) == NULL)
		return 0;
	if (get_strlist(c, n, fld(g, parent, "allowAddresses"),
	    chk_net_address, &na->addresses, &na->naddresses) != 0)
		return AL_ERR_FORMAT;
	na->hosts = xreallocarray(na->hosts, na->nhosts + na->naddresses + 1,
	    sizeof(*na->hosts));
	for (i = 0; i < na->naddresses; i++)
		na->hosts[na->nhosts++] = xstrdup(na->addresses[i]);
	na->hosts[na->nhosts] = NULL;
	return 0;
}

void
net_init(struct net_allow *na)
{
	na->hosts = xcalloc(1, sizeof(*na->hosts));
	na->addresses = xcalloc(1, sizeof(*na->addresses));
}

static int
chk_check_id(struct lctx *c, const struct ynode *n, const char *f)
{
	if (!type_check_id_valid(n->s))
		return lctx_err(c, n, f, "not a check id ([A-Za-z0-9._:-], "
		    "at most 128)");
	if (manifest_check(c->m, n->s) == NULL)
		return lctx_err(c, n, f, "unknown check id \"%s\"", n->s);
	return 0;
}

static int
chk_nonempty(struct lctx *c, const struct ynode *n, const char *f)
{
	if (n->len == 0)
		return lctx_err(c, n, f, "empty string");
	return 0;
}

/*
 * A C0 or C1 control character or DEL: airlock check -v printed
 * approvals.keys[].name and approvals.inbox as they were, so an ESC
 * sequence or a newline in one drew what it liked over the policy a
 * reviewer read there.
 */
static int
chk_no_control(struct lctx *c, const struct ynode *n, const char *f)
{
	const unsigned char *p;

	for (p = (const unsigned char *)n->s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			return lctx_err(c, n, f, "a control character "
			    "(a terminal would act on it where airlock check "
			    "-v shows it)");
	return 0;
}

/* ---- types: ---- */

const char *const manifest_type_kinds[] = {
	"string", "integer", "number", "boolean", "list", "object", NULL
};

static const char *const type_keys[] = {
	"type", "minLength", "maxLength", "pattern", "enum",
	"min", "max", "items", "maxItems", "fields", "required", NULL
};

/* Which keys each kind may use, beyond type and description. */
static int
type_key_allowed(enum type_kind k, const char *key)
{
	static const struct {
		const char	*key;
		unsigned	 kinds;
	} rows[] = {
		{ "type",	0x3f },
		{ "minLength",	1 << TYPE_STRING },
		{ "maxLength",	1 << TYPE_STRING },
		{ "pattern",	1 << TYPE_STRING },
		{ "enum",	1 << TYPE_STRING },
		{ "min",	1 << TYPE_INTEGER | 1 << TYPE_NUMBER },
		{ "max",	1 << TYPE_INTEGER | 1 << TYPE_NUMBER },
		{ "items",	1 << TYPE_LIST },
		{ "maxItems",	1 << TYPE_LIST },
		{ "fields",	1 << TYPE_OBJECT },
		{ "required",	1 << TYPE_OBJECT },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strcmp(rows[i].key, key) == 0)
			return (rows[i].kinds >> k) & 1;
	return 0;
}

/* Looks up a type reference "name" or "name?"; *optional set. */
static int
type_ref(struct lctx *c, const struct ynode *n, const char *field,
    const struct type **out, int *optional)
{
	char name[NAME_MAX_LEN + 2];

	*optional = 0;
	if (want(c, n, field, Y_SCALAR) != 0)
		return AL_ERR_FORMAT;
	if (is_null(n))
		return lctx_err(c, n, field, "expected a type name");
	if (n->len > NAME_MAX_LEN + 1)
		return lctx_err(c, n, field, "unknown type \"%s\"", n->s);
	memcpy(name, n->s, n->len + 1);
	if (n->len > 1 && name[n->len - 1] == '?') {
		name[n->len - 1] = '\0';
		*optional = 1;
	}
	if ((*out = type_lookup(c->m->types, name)) == NULL)
		return lctx_err(c, n, field, "unknown type \"%s\"", name);
	return 0;
}

/* A field list: mapping name -> type reference ("name?" optional). */
int
parse_fields(struct lctx *c, const struct ynode *map, const char *field,
    int optional_ok, struct type_field **out, size_t *nout)
{
	char f[FIELD_MAX];
	struct type_field *v;
	size_t i;
	int opt;

	if (is_null(map)) {
		*out = NULL;
		*nout = 0;
		return 0;
	}
	if (check_keys(c, map, field, NULL) != 0)
		return AL_ERR_FORMAT;
	if (map->n / 2 > FIELDS_MAX)
		return lctx_err(c, map, field, "more than %d fields", FIELDS_MAX);
	v = xcalloc(map->n / 2 + 1, sizeof(*v));
	for (i = 0; i < map->n / 2; i++) {
		const struct ynode *k = map->v[2 * i];

		fld(f, field, k->s);
		if (!ident_ok(k->s, 0)) {
			lctx_err(c, k, f, "field name must be [A-Za-z_][A-Za-z0-9_]*, "
			    "at most %d", NAME_MAX_LEN);
			goto fail;
		}
		v[i].name = xstrdup(k->s);
		if (type_ref(c, map->v[2 * i + 1], f, &v[i].type, &opt) != 0)
			goto fail;
		if (opt && !optional_ok) {
			lctx_err(c, map->v[2 * i + 1], f,
			    "\"?\" cannot be used with required:");
			goto fail;
		}
		v[i].required = !opt;
	}
	*out = v;
	*nout = map->n / 2;
	return 0;
 fail:
	for (i = 0; i < map->n / 2; i++)
		free(v[i].name);
	free(v);
	return AL_ERR_FORMAT;
}

/*
 * Static nesting depth of a type (-1 on a cycle) and, in *size, the number
 * of nodes of its expanded JSON Schema (saturating): a depth-first walk
 * that remembers each type's answers (state/depth/size are indexed like
 * the table), so a type shared by many fields is visited once.
 */
#define EXPANSION_CAP	(1ULL << 40)

static int
type_depth(const struct type_table *tt, const struct type *t, int *state,
    int *depth, uint64_t *size, uint64_t *out_size)
{
	size_t i, j, n = type_table_count(tt);
	uint64_t sum = 1, sz;
	int d, best = 0;

	*out_size = 1;
	if (t->kind != TYPE_LIST && t->kind != TYPE_OBJECT)
		return 0;
	for (i = 0; i < n; i++)
		if (type_table_at(tt, i) == t)
			break;
	if (i == n)
		return -1;	/* cannot happen: every type is in the table */
	if (state[i] == 2) {
		*out_size = size[i];
		return depth[i];
	}
	if (state[i] == 1)
		return -1;
	state[i] = 1;
	if (t->kind == TYPE_LIST) {
		best = type_depth(tt, t->items, state, depth, size, &sz);
		sum += sz;
	} else {
		for (j = 0; j < t->nfields && best >= 0; j++) {
			d = type_depth(tt, t->fields[j].type, state, depth,
			    size, &sz);
			if (d < 0 || d > best)
				best = d;
			sum += sz;
			if (sum > EXPANSION_CAP)
				sum = EXPANSION_CAP;
		}
	}
	if (best < 0)
		return -1;
	state[i] = 2;
	depth[i] = best + 1;
	size[i] = *out_size = sum;
	return depth[i];
}

static int
parse_types(struct lctx *c, const struct ynode *map)
{
	char f[FIELD_MAX], g[FIELD_MAX], h[FIELD_MAX], msg[256];
	const struct ynode *def, *n, *req;
	struct type *t;
	uint64_t *size, sz;
	int *state, *depth;
	size_t i, j, first = type_table_count(c->m->types);
	int kind, opt, d;
	int64_t iv;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "types", NULL) != 0)
		return AL_ERR_FORMAT;
	if (map->n / 2 > LIST_MAX)
		return lctx_err(c, map, "types", "more than %d types", LIST_MAX);
	/* First pass: declare every name, so types may refer to later ones. */
	for (i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->v[i];

		fld(f, "types", k->s);
		def = map->v[i + 1];
		if (!ident_ok(k->s, 0))
			return lctx_err(c, k, f, "type name must be "
			    "[A-Za-z_][A-Za-z0-9_]*, at most %d", NAME_MAX_LEN);
		if (type_lookup(c->m->types, k->s) != NULL)
			return lctx_err(c, k, f, "redefines the built-in type "
			    "\"%s\"", k->s);
		if (check_keys(c, def, f, type_keys) != 0)
			return AL_ERR_FORMAT;
		if ((n = ynode_get(def, "type")) == NULL)
			return lctx_err(c, def, f, "missing key \"type\"");
		if (get_enum(c, n, fld(g, f, "type"), manifest_type_kinds, &kind) != 0)
			return AL_ERR_FORMAT;
		for (j = 0; j < def->n; j += 2)
			if (!type_key_allowed(kind, def->v[j]->s))
				return lctx_err(c, def->v[j],
				    fld(g, f, def->v[j]->s),
				    "not allowed for type %s", manifest_type_kinds[kind]);
		t = xcalloc(1, sizeof(*t));
		t->name = xstrdup(k->s);
		t->kind = kind;
		t->max_length = TYPE_DEFAULT_MAX_STRING;
		t->max_items = TYPE_DEFAULT_MAX_ITEMS;
		t->line = k->line;
		t->column = k->col;
		if (type_table_add(c->m->types, t) != 0) {
			type_free(t);
			return AL_ERR_ALLOC;
		}
	}
	/* Second pass: bounds and references. */
	for (i = 0; i < map->n; i += 2) {
		t = (struct type *)type_table_at(c->m->types, first + i / 2);
		def = map->v[i + 1];
		fld(f, "types", t->name);
		if ((n = ynode_get(def, "minLength")) != NULL) {
			if (get_int(c, n, fld(g, f, "minLength"), 0,
			    STRING_BOUND_MAX, &iv) != 0)
				return AL_ERR_FORMAT;
			t->min_length = (size_t)iv;
		}
		if ((n = ynode_get(def, "maxLength")) != NULL) {
			if (get_int(c, n, fld(g, f, "maxLength"), 1,
			    STRING_BOUND_MAX, &iv) != 0)
				return AL_ERR_FORMAT;
			t->max_length = (size_t)iv;
		}
		if (t->kind == TYPE_STRING && t->min_length > t->max_length)
			return lctx_err(c, ynode_get(def, "minLength"),
			    fld(g, f, "minLength"), "greater than maxLength");
		if ((n = ynode_get(def, "pattern")) != NULL) {
			fld(g, f, "pattern");
			if (want(c, n, g, Y_SCALAR) != 0)
				return AL_ERR_FORMAT;
			if (type_set_pattern(t, n->s, msg, sizeof(msg)) != 0)
				return lctx_err(c, n, g, "%s", msg);
		}
		if ((n = ynode_get(def, "enum")) != NULL) {
			if (get_strlist(c, n, fld(g, f, "enum"), NULL,
			    &t->enumv, NULL) != 0)
				return AL_ERR_FORMAT;
			if (t->enumv[0] == NULL)
				return lctx_err(c, n, g, "empty enum");
			for (j = 0; t->enumv[j] != NULL; j++)
				if (strlen(t->enumv[j]) > t->max_length ||
				    strlen(t->enumv[j]) < t->min_length)
					return lctx_err(c, n->v[j], fldi(h, g, j),
					    "outside the type's length bounds");
		}
		if ((n = ynode_get(def, "min")) != NULL) {
			if (get_bound(c, n, fld(g, f, "min"), t->kind,
			    &t->min) != 0)
				return AL_ERR_FORMAT;
			t->has_min = 1;
		}
		if ((n = ynode_get(def, "max")) != NULL) {
			if (get_bound(c, n, fld(g, f, "max"), t->kind,
			    &t->max) != 0)
				return AL_ERR_FORMAT;
			t->has_max = 1;
			if (t->has_min && t->min > t->max)
				return lctx_err(c, n, g, "less than min");
		}
		if (t->kind == TYPE_LIST) {
			if ((n = ynode_get(def, "items")) == NULL)
				return lctx_err(c, def, f, "missing key \"items\"");
			if (type_ref(c, n, fld(g, f, "items"), &t->items,
			    &opt) != 0)
				return AL_ERR_FORMAT;
			if (opt)
				return lctx_err(c, n, g, "list items cannot be "
				    "optional");
			if ((n = ynode_get(def, "maxItems")) != NULL) {
				if (get_int(c, n, fld(g, f, "maxItems"), 1,
				    ITEMS_BOUND_MAX, &iv) != 0)
					return AL_ERR_FORMAT;
				t->max_items = (size_t)iv;
			}
		}
		if (t->kind == TYPE_OBJECT) {
			req = ynode_get(def, "required");
			if ((n = ynode_get(def, "fields")) == NULL)
				return lctx_err(c, def, f, "missing key \"fields\"");
			if (parse_fields(c, n, fld(g, f, "fields"), req == NULL,
			    &t->fields, &t->nfields) != 0)
				return AL_ERR_FORMAT;
			if (req != NULL) {
				char **names = NULL;
				size_t k, nn;

				if (get_strlist(c, req, fld(g, f, "required"),
				    NULL, &names, &nn) != 0)
					return AL_ERR_FORMAT;
				/* required: lists exactly the required fields. */
				for (j = 0; j < t->nfields; j++)
					t->fields[j].required = 0;
				for (k = 0; k < nn; k++) {
					for (j = 0; j < t->nfields; j++)
						if (strcmp(t->fields[j].name,
						    names[k]) == 0)
							break;
					if (j == t->nfields) {
						lctx_err(c, req->v[k], fldi(h, g, k),
						    "no field \"%s\"", names[k]);
						strv_free(names);
						return AL_ERR_FORMAT;
					}
					t->fields[j].required = 1;
				}
				strv_free(names);
			}
		}
	}
	/* Third pass: no cycles, bounded nesting. */
	state = xcalloc(type_table_count(c->m->types), sizeof(*state));
	depth = xcalloc(type_table_count(c->m->types), sizeof(*depth));
	size = xcalloc(type_table_count(c->m->types), sizeof(*size));
	for (i = first; i < type_table_count(c->m->types); i++) {
		const struct type *u = type_table_at(c->m->types, i);
		struct ynode pos;

		memset(&pos, 0, sizeof(pos));
		pos.line = u->line;
		pos.col = u->column;
		d = type_depth(c->m->types, u, state, depth, size, &sz);
		if (d < 0 || d > TYPE_MAX_DEPTH || sz > TYPE_MAX_EXPANSION) {
			free(state);
			free(depth);
			free(size);
			if (d < 0)
				return lctx_err(c, &pos, fld(f, "types", u->name),
				    "type refers to itself (cycle)");
			if (d > TYPE_MAX_DEPTH)
				return lctx_err(c, &pos, fld(f, "types", u->name),
				    "nested deeper than %d", TYPE_MAX_DEPTH);
			return lctx_err(c, &pos, fld(f, "types", u->name),
			    "expands to more than %d schema nodes",
			    TYPE_MAX_EXPANSION);
		}
	}
	free(state);
	free(depth);
	free(size);
	return 0;
}

/* ---- checks: ---- */

static const char *const check_keys_allowed[] = {
	"argv", "env", "timeoutMs", "network", "allowAddresses", "pin", NULL
};

/*
 * "pin": workspace paths (a trailing '/' names a directory) whose content
 * is the code of a check or tool, beyond what its argv names.
 */
int
parse_pin(struct lctx *c, const struct ynode *map, const char *parent,
    char ***pin, size_t *npin)
{
	char g[FIELD_MAX];
	const struct ynode *n;

	if ((n = ynode_get(map, "pin")) == NULL || is_null(n))
		return 0;
	return get_strlist(c, n, fld(g, parent, "pin"), chk_ws_path, pin,
	    npin);
}

static int
parse_checks(struct lctx *c, const struct ynode *map)
{
	char f[FIELD_MAX], g[FIELD_MAX], h[FIELD_MAX];
	const struct ynode *def, *n, *env;
	struct check *ck;
	size_t i, j;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "checks", NULL) != 0)
		return AL_ERR_FORMAT;
	if (map->n / 2 > LIST_MAX)
		return lctx_err(c, map, "checks", "more than %d checks", LIST_MAX);
	c->m->checks = xcalloc(map->n / 2 + 1, sizeof(*c->m->checks));
	for (i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->v[i];

		fld(f, "checks", k->s);
		def = map->v[i + 1];
		if (!type_check_id_valid(k->s))
			return lctx_err(c, k, f, "not a check id ([A-Za-z0-9._:-], "
			    "at most 128)");
		ck = &c->m->checks[c->m->nchecks++];
		ck->id = xstrdup(k->s);
		ck->line = k->line;
		ck->column = k->col;
		ck->timeout_ms = 120000;
		ck->env = xcalloc(1, sizeof(char *));
		ck->pin = xcalloc(1, sizeof(char *));
		net_init(&ck->network);
		if (def->kind == Y_SEQ)
			n = def;	/* shorthand: the argv alone */
		else {
			if (check_keys(c, def, f, check_keys_allowed) != 0)
				return AL_ERR_FORMAT;
			if ((n = ynode_get(def, "argv")) == NULL)
				return lctx_err(c, def, f, "missing key \"argv\"");
			fld(g, f, "argv");
		}
		if (def->kind == Y_SEQ)
			snprintf(g, sizeof(g), "%s", f);
		if (get_strlist(c, n, g, NULL, &ck->argv, NULL) != 0)
			return AL_ERR_FORMAT;
		if (ck->argv[0] == NULL)
			return lctx_err(c, n, g, "empty argv");
		if (ck->argv[0][0] == '\0')
			return lctx_err(c, n->v[0], g, "empty program name");
		if (def->kind == Y_SEQ)
			continue;
		if ((env = ynode_get(def, "env")) != NULL && !is_null(env)) {
			fld(g, f, "env");
			if (check_keys(c, env, g, NULL) != 0)
				return AL_ERR_FORMAT;
			free(ck->env);
			ck->env = xcalloc(env->n / 2 + 1, sizeof(char *));
			for (j = 0; j < env->n; j += 2) {
				fld(h, g, env->v[j]->s);
				if (chk_env_name(c, env->v[j], h) != 0 ||
				    want(c, env->v[j + 1], h, Y_SCALAR) != 0)
					return AL_ERR_FORMAT;
				xasprintf(&ck->env[ck->nenv++], "%s=%s",
				    env->v[j]->s, env->v[j + 1]->s);
			}
		}
		if ((n = ynode_get(def, "timeoutMs")) != NULL &&
		    get_int(c, n, fld(g, f, "timeoutMs"), 1, TIMEOUT_MAX_MS,
		    &ck->timeout_ms) != 0)
			return AL_ERR_FORMAT;
		if (parse_net(c, def, f, &ck->network) != 0 ||
		    parse_pin(c, def, f, &ck->pin, &ck->npin) != 0)
			return AL_ERR_FORMAT;
	}
	return 0;
}

/* ---- tools: ---- */

const char *const side_effect_names[] = {
	"none", "workspace_write", "sandbox_process", "network", "external",
	NULL
};
const char *const authz_names[] = {
	"allow", "deny", "approval", NULL
};
const char *const action_names[] = {
	"read_file", "write_file", "apply_patch", "list_files", "search",
	"run_check", "exec", "request_approval", "command", "read_output",
	"job_output", "job_kill", NULL
};

/* ---- runBudget:, sandbox:, approvals:, agent:, limits: ---- */

const char *const manifest_budget_keys[] = {
	"maxModelSteps", "maxPatchAttemptsPerGate", "maxElapsedMinutes",
	"maxChangedFiles", "maxAddedDependencies", "maxToolCostUsd",
	"maxParallelProcesses", "stopOnRepeatedFailureFingerprint",
	"maxRefusedCalls", "maxAuditMiB", NULL
};

int64_t *
manifest_budget_slot(struct run_budget *b, size_t i)
{
	int64_t *slots[] = {
		&b->max_model_steps, &b->max_patch_attempts_per_gate,
		&b->max_elapsed_minutes, &b->max_changed_files,
		&b->max_added_dependencies, NULL,
		&b->max_parallel_processes,
		&b->stop_on_repeated_failure_fingerprint,
		&b->max_refused_calls, &b->max_audit_mib,
	};
	return slots[i];
}

static void
budget_defaults(struct run_budget *b)
{
	size_t i;

	for (i = 0; manifest_budget_keys[i] != NULL; i++)
		if (manifest_budget_slot(b, i) != NULL)
			*manifest_budget_slot(b, i) = -1;
	b->max_tool_cost_usd = -1;
	b->max_refused_calls = MANIFEST_REFUSED_CALLS_DEFAULT;
	b->max_audit_mib = MANIFEST_AUDIT_MIB_DEFAULT;
}

/*
 * Budgets whose 0 a reviewer cannot read right: every other budget's 0
 * allows none (maxChangedFiles: 0, no file changes; maxToolCostUsd: 0,
 * free tools only), a session that can still do something.  These left
 * nothing to do, or meant the opposite of the others' 0: maxElapsedMinutes
 * stopped the session before its first call while airlock run gave the
 * agent no deadline at all (it kept running, every call refused);
 * maxModelSteps refused every call and maxRefusedCalls the first one,
 * refused or not; stopOnRepeatedFailureFingerprint: 0 was "off", where
 * its -1 is too.  NULL for a key whose 0 is allowed.
 */
static const char *
budget_zero_refused(const char *key)
{
	static const struct {
		const char *key;
		const char *why;
	} zero[] = {
		{ "maxElapsedMinutes",
		    "0 would stop the session before its first call, and "
		    "airlock run would give the agent no deadline: give at "
		    "least 1 (minute), or -1 for no limit" },
		{ "maxModelSteps",
		    "0 would refuse every call, the first one included: give "
		    "at least 1, or -1 for no limit" },
		{ "maxRefusedCalls",
		    "0 would stop the session at its first call, refused or "
		    "not: give at least 1, or -1 for no limit" },
		{ "stopOnRepeatedFailureFingerprint",
		    "0 reads as no limit to some and as stop at once to "
		    "others: give at least 1 (stop at that many failures "
		    "with one fingerprint), or -1 for off" },
	};
	size_t i;

	for (i = 0; i < sizeof(zero) / sizeof(zero[0]); i++)
		if (strcmp(zero[i].key, key) == 0)
			return zero[i].why;
	return NULL;
}

static int
parse_budget(struct lctx *c, const struct ynode *map)
{
	char g[FIELD_MAX];
	const struct ynode *n;
	const char *why;
	size_t i;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "runBudget", manifest_budget_keys) != 0)
		return AL_ERR_FORMAT;
	for (i = 0; manifest_budget_keys[i] != NULL; i++) {
		if ((n = ynode_get(map, manifest_budget_keys[i])) == NULL)
			continue;
		fld(g, "runBudget", manifest_budget_keys[i]);
		if (manifest_budget_slot(&c->m->budget, i) == NULL) {
			if (get_num(c, n, g, -1, &c->m->budget.max_tool_cost_usd) != 0)
				return AL_ERR_FORMAT;
			if (c->m->budget.max_tool_cost_usd < 0 &&
			    c->m->budget.max_tool_cost_usd != -1)
				return lctx_err(c, n, g, "must be >= 0, or -1 for "
				    "no limit");
		} else if (manifest_budget_slot(&c->m->budget, i) ==
		    &c->m->budget.max_audit_mib) {
			if (get_int(c, n, g, -1, MANIFEST_AUDIT_MIB_MAX,
			    &c->m->budget.max_audit_mib) != 0)
				return AL_ERR_FORMAT;
			/* 0 would stop the session at its first request. */
			if (c->m->budget.max_audit_mib == 0)
				return lctx_err(c, n, g, "must be at least 1 "
				    "(MiB), or -1 for no limit");
		} else if (get_int(c, n, g, -1,
		    manifest_budget_slot(&c->m->budget, i) ==
			    &c->m->budget.max_elapsed_minutes
			? MANIFEST_ELAPSED_MINUTES_MAX
			: INT64_MAX,
		    manifest_budget_slot(&c->m->budget, i)) != 0)
			return AL_ERR_FORMAT;
		else if (*manifest_budget_slot(&c->m->budget, i) == 0 &&
		    (why = budget_zero_refused(manifest_budget_keys[i])) !=
			NULL)
			return lctx_err(c, n, g, "%s", why);
	}
	return 0;
}

const char *const manifest_limit_keys[] = {
	"cpuSeconds", "addressSpaceMb", "fileSizeMb", "openFiles", "processes",
	"memoryMb", "cpuPercent", "tmpSizeMb", "outputBytes", NULL
};

int64_t *
manifest_limit_slot(struct resource_limits *l, size_t i)
{
	int64_t *slots[] = {
		&l->cpu_seconds, &l->address_space_mb, &l->file_size_mb,
		&l->open_files, &l->processes, &l->memory_mb, &l->cpu_percent,
		&l->tmp_size_mb, &l->output_bytes,
	};
	return slots[i];
}

static int
parse_limits(struct lctx *c, const struct ynode *map, const char *field,
    struct resource_limits *l)
{
	char g[FIELD_MAX];
	const struct ynode *n;
	size_t i;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, field, manifest_limit_keys) != 0)
		return AL_ERR_FORMAT;
	for (i = 0; manifest_limit_keys[i] != NULL; i++) {
		if ((n = ynode_get(map, manifest_limit_keys[i])) == NULL)
			continue;
		if (get_int(c, n, fld(g, field, manifest_limit_keys[i]), 0,
		    INT64_MAX / (1024 * 1024), manifest_limit_slot(l, i)) != 0)
			return AL_ERR_FORMAT;
		/*
		 * 0 sets no limit (or the built-in size, for tmpSizeMb and
		 * outputBytes), where a reader takes "processes: 0" for none
		 * allowed; it is written only where the page says "0: no
		 * limit".
		 */
		if (*manifest_limit_slot(l, i) == 0 &&
		    strcmp(manifest_limit_keys[i], "cpuSeconds") != 0 &&
		    strcmp(manifest_limit_keys[i], "addressSpaceMb") != 0)
			return lctx_err(c, n, g, "0 would set no limit at all, "
			    "not a limit of none: give a positive number, or "
			    "leave the key out for its default");
		l->asked |= limit_asked_bit(manifest_limit_keys[i]);
	}
	return 0;
}

static const char *const sandbox_keys[] = {
	"uid", "gid", "readOnly", "readOnlyReplace", "denyRead", "protected",
	"network", "seccomp", "landlock", "workspace", "limits",
	"allowSyscalls", NULL
};

/* Appends the entries of |add| that |*vp| lacks (both NULL-terminated). */
static void
strv_union(char ***vp, size_t *np, char *const *add)
{
	size_t i, j;

	for (i = 0; add[i] != NULL; i++) {
		for (j = 0; j < *np; j++)
			if (strcmp((*vp)[j], add[i]) == 0)
				break;
		if (j < *np)
			continue;
		*vp = xreallocarray(*vp, *np + 2, sizeof(**vp));
		(*vp)[(*np)++] = xstrdup(add[i]);
		(*vp)[*np] = NULL;
	}
}

/* sandbox.denyRead: each path made absolute (sandbox_deny_read_path()). */
static int
deny_read_paths(struct lctx *c, const struct ynode *seq, char **v)
{
	const char *why;
	char f[FIELD_MAX], *e;
	size_t i;

	for (i = 0; v[i] != NULL; i++) {
		if ((why = sandbox_deny_read_path(v[i], getenv("HOME"),
		    &e)) != NULL)
			return lctx_err(c, seq->v[i],
			    fldi(f, "sandbox.denyRead", i), "%s", why);
		free(v[i]);
		v[i] = e;
	}
	return 0;
}

static int
parse_sandbox(struct lctx *c, const struct ynode *map)
{
	static const char *const netw[] = { "none", "proxy", NULL };
	static const char *const secc[] = { "default", "strict", NULL };
	static const char *const wsm[] = { "direct", "cow", NULL };
	struct sandbox_policy *s = &c->m->sandbox;
	const struct ynode *n;
	int64_t iv;
	int v;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "sandbox", sandbox_keys) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "uid")) != NULL) {
		if (get_int(c, n, "sandbox.uid", 0, 0xfffffffe, &iv) != 0)
			return AL_ERR_FORMAT;
		s->uid = (uid_t)iv;
	}
	if ((n = ynode_get(map, "gid")) != NULL) {
		if (get_int(c, n, "sandbox.gid", 0, 0xfffffffe, &iv) != 0)
			return AL_ERR_FORMAT;
		s->gid = (gid_t)iv;
	}
	/* readOnly extends the default list; readOnlyReplace: true makes it
	 * the whole list instead. */
	v = 0;
	if ((n = ynode_get(map, "readOnlyReplace")) != NULL &&
	    get_bool(c, n, "sandbox.readOnlyReplace", &v) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "readOnly")) != NULL) {
		char **extra = NULL;

		if (get_strlist(c, n, "sandbox.readOnly", chk_abs_path, &extra,
		    NULL) != 0)
			return AL_ERR_FORMAT;
		if (v) {
			strv_free(s->read_only);
			s->read_only = xcalloc(1, sizeof(*s->read_only));
			s->nread_only = 0;
		}
		strv_union(&s->read_only, &s->nread_only, extra);
		strv_free(extra);
	} else if (v) {
		strv_free(s->read_only);
		s->read_only = xcalloc(1, sizeof(*s->read_only));
		s->nread_only = 0;
	}
	if ((n = ynode_get(map, "denyRead")) != NULL) {
		if (get_strlist(c, n, "sandbox.denyRead", chk_lookalike,
		    &s->deny_read, &s->ndeny_read) != 0 ||
		    deny_read_paths(c, n, s->deny_read) != 0)
			return AL_ERR_FORMAT;
	}
	if ((n = ynode_get(map, "protected")) != NULL &&
	    get_strlist(c, n, "sandbox.protected", chk_ws_path, &s->protected,
	    &s->nprotected) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "network")) != NULL) {
		if (get_enum(c, n, "sandbox.network", netw, &v) != 0)
			return AL_ERR_FORMAT;
		s->network = v;
	}
	if ((n = ynode_get(map, "seccomp")) != NULL) {
		if (get_enum(c, n, "sandbox.seccomp", secc, &v) != 0)
			return AL_ERR_FORMAT;
		s->seccomp = v;
	}
	if ((n = ynode_get(map, "landlock")) != NULL &&
	    get_bool(c, n, "sandbox.landlock", &s->landlock) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "workspace")) != NULL) {
		if (get_enum(c, n, "sandbox.workspace", wsm, &v) != 0)
			return AL_ERR_FORMAT;
		s->workspace = v;
	}
	if ((n = ynode_get(map, "limits")) != NULL &&
	    parse_limits(c, n, "sandbox.limits", &s->limits) != 0)
		return AL_ERR_FORMAT;
	return manifest_allow_syscalls(c, map);
}

static const char *const approvals_keys[] = {
	"approvers", "ttlSeconds", "maxAsksPerMinute", "notify", "keys",
	"revokedKeys", "inbox", NULL
};

/* One approvers entry: a user (name or uid) or a group ("group:X", "@X"). */
static int
parse_approver(struct lctx *c, const struct ynode *e, const char *g)
{
	struct approval_policy *a = &c->m->approvals;
	const char *name = e->s;
	struct passwd *pw;
	struct group *gr;
	int64_t iv;

	if (strncmp(name, "group:", 6) == 0 || name[0] == '@') {
		name += name[0] == '@' ? 1 : 6;
		if (name[0] != '\0' && isdigit((unsigned char)name[0])) {
			char *end;
			unsigned long gid;

			/* As get_int(): "group:0042" read as 42 here, where a
			 * reader who takes 0042 for octal expects group 34. */
			if (name[0] == '0' && name[1] != '\0')
				return lctx_err(c, e, g, "group id \"%s\" has "
				    "leading zeros, which some read as octal: "
				    "write it in decimal without them", name);
			errno = 0;
			gid = strtoul(name, &end, 10);
			if (*end != '\0' || errno != 0 || gid > 0xfffffffeUL)
				return lctx_err(c, e, g, "bad group id \"%s\"",
				    name);
			a->approver_groups[a->ngroups++] = (gid_t)gid;
		} else if (name[0] != '\0' && (gr = getgrnam(name)) != NULL)
			a->approver_groups[a->ngroups++] = gr->gr_gid;
		else
			return lctx_err(c, e, g, "unknown group \"%s\"", name);
	} else if (e->len > 0 && isdigit((unsigned char)e->s[0])) {
		if (get_int(c, e, g, 0, 0xfffffffe, &iv) != 0)
			return AL_ERR_FORMAT;
		a->approvers[a->napprovers++] = (uid_t)iv;
	} else if ((pw = getpwnam(e->s)) != NULL)
		a->approvers[a->napprovers++] = pw->pw_uid;
	else
		return lctx_err(c, e, g, "unknown user \"%s\"", e->s);
	return 0;
}

/* keys: [KEY | {name: N, key: KEY}]; revokedKeys: [KEY]. */
static int
parse_approver_keys(struct lctx *c, const struct ynode *n, int revoked)
{
	struct approval_policy *a = &c->m->approvals;
	const char *field = revoked ? "approvals.revokedKeys" : "approvals.keys";
	const struct ynode *e, *k, *nm;
	unsigned char pk[32];
	char g[FIELD_MAX], f[FIELD_MAX];
	size_t i;

	if (want(c, n, field, Y_SEQ) != 0)
		return AL_ERR_FORMAT;
	if (n->n > LIST_MAX)
		return lctx_err(c, n, field, "more than %d items", LIST_MAX);
	for (i = 0; i < n->n; i++) {
		e = n->v[i];
		fldi(g, field, i);
		k = e;
		nm = NULL;
		if (!revoked && e->kind == Y_MAP) {
			static const char *const kk[] = { "name", "key", NULL };

			if (check_keys(c, e, g, kk) != 0)
				return AL_ERR_FORMAT;
			if ((k = ynode_get(e, "key")) == NULL)
				return lctx_err(c, e, g, "a key entry needs key:");
			nm = ynode_get(e, "name");
			if (nm != NULL && (want(c, nm, fld(f, g, "name"),
			    Y_SCALAR) != 0 || is_null(nm)))
				return lctx_err(c, nm, f, "expected a name");
			if (nm != NULL && chk_no_control(c, nm, f) != 0)
				return AL_ERR_FORMAT;
		}
		if (want(c, k, g, Y_SCALAR) != 0)
			return AL_ERR_FORMAT;
		if (approver_pk_decode(k->s, pk) != 0)
			return lctx_err(c, k, g, "not an approver public key "
			    "(%sBASE64, as airlock approver keygen writes it)",
			    APPROVER_PK_PREFIX);
		if (revoked) {
			a->revoked = xreallocarray(a->revoked, a->nrevoked + 1,
			    sizeof(*a->revoked));
			memcpy(a->revoked[a->nrevoked++], pk, 32);
		} else {
			a->keys = xreallocarray(a->keys, a->nkeys + 1,
			    sizeof(*a->keys));
			memcpy(a->keys[a->nkeys].pk, pk, 32);
			a->keys[a->nkeys++].name = nm != NULL ?
			    xstrdup(nm->s) : NULL;
		}
	}
	return 0;
}

static const char *const notify_keys[] = {
	"command", "network", "allowAddresses", "env", "events", "timeoutMs",
	NULL
};

/*
 * notify: {command, network, allowAddresses, env, events, timeoutMs}: the
 * hook and its sandbox.
 */
static int
parse_notify(struct lctx *c, const struct ynode *map)
{
	struct approval_policy *a = &c->m->approvals;
	const struct ynode *n;
	char **ev = NULL;
	size_t i;

	if (check_keys(c, map, "approvals.notify", notify_keys) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "command")) == NULL)
		return lctx_err(c, map, "approvals.notify", "needs command:");
	if (get_strlist(c, n, "approvals.notify.command", chk_nonempty,
	    &a->notify, NULL) != 0)
		return AL_ERR_FORMAT;
	if (a->notify[0] == NULL)
		return lctx_err(c, n, "approvals.notify.command", "is empty");
	if (parse_net(c, map, "approvals.notify", &a->notify_net) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "env")) != NULL &&
	    get_strlist(c, n, "approvals.notify.env", chk_env_name,
	    &a->notify_env, &a->nnotify_env) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "timeoutMs")) != NULL &&
	    get_int(c, n, "approvals.notify.timeoutMs", 100, 600000,
	    &a->notify_timeout_ms) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "events")) != NULL) {
		if (get_strlist(c, n, "approvals.notify.events", chk_nonempty,
		    &ev, NULL) != 0)
			return AL_ERR_FORMAT;
		a->notify_events = 0;
		for (i = 0; ev[i] != NULL; i++) {
			if (strcmp(ev[i], "created") == 0)
				a->notify_events |= NOTIFY_EV_CREATED;
			else if (strcmp(ev[i], "decided") == 0)
				a->notify_events |= NOTIFY_EV_DECIDED;
			else if (strcmp(ev[i], "expired") == 0)
				a->notify_events |= NOTIFY_EV_EXPIRED;
			else if (strcmp(ev[i], "withdrawn") == 0)
				a->notify_events |= NOTIFY_EV_WITHDRAWN;
			else {
				char g[FIELD_MAX];

				strv_free(ev);
				fldi(g, "approvals.notify.events", i);
				return lctx_err(c, n->v[i], g, "expected created, "
				    "decided, expired or withdrawn");
			}
		}
		strv_free(ev);
	}
	return 0;
}

static int
parse_approvals(struct lctx *c, const struct ynode *map)
{
	struct approval_policy *a = &c->m->approvals;
	const struct ynode *n;
	char g[FIELD_MAX];
	size_t i;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "approvals", approvals_keys) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "approvers")) != NULL) {
		if (want(c, n, "approvals.approvers", Y_SEQ) != 0)
			return AL_ERR_FORMAT;
		if (n->n > LIST_MAX)
			return lctx_err(c, n, "approvals.approvers",
			    "more than %d items", LIST_MAX);
		free(a->approvers);
		free(a->approver_groups);
		strv_free(a->approver_names);
		a->approvers = xcalloc(n->n + 1, sizeof(*a->approvers));
		a->approver_groups = xcalloc(n->n + 1,
		    sizeof(*a->approver_groups));
		a->approver_names = xcalloc(n->n + 1,
		    sizeof(*a->approver_names));
		a->napprovers = 0;
		a->ngroups = 0;
		for (i = 0; i < n->n; i++) {
			fldi(g, "approvals.approvers", i);
			if (want(c, n->v[i], g, Y_SCALAR) != 0 ||
			    parse_approver(c, n->v[i], g) != 0)
				return AL_ERR_FORMAT;
			a->approver_names[i] = xstrdup(n->v[i]->s);
		}
	}
	if ((n = ynode_get(map, "ttlSeconds")) != NULL &&
	    get_int(c, n, "approvals.ttlSeconds", 1, 30 * 86400,
	    &a->ttl_seconds) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "maxAsksPerMinute")) != NULL &&
	    get_int(c, n, "approvals.maxAsksPerMinute", 1,
	    APPROVALS_MAX_ASKS_PER_MINUTE, &a->max_asks_per_minute) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "notify")) != NULL) {
		if (n->kind == Y_MAP) {
			if (parse_notify(c, n) != 0)
				return AL_ERR_FORMAT;
		} else if (get_strlist(c, n, "approvals.notify", chk_nonempty,
		    &a->notify, NULL) != 0)
			return AL_ERR_FORMAT;
		if (a->notify[0] == NULL) {
			free(a->notify);
			a->notify = NULL;
		}
	}
	if ((n = ynode_get(map, "keys")) != NULL &&
	    parse_approver_keys(c, n, 0) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "revokedKeys")) != NULL &&
	    parse_approver_keys(c, n, 1) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "inbox")) != NULL) {
		if (want(c, n, "approvals.inbox", Y_SCALAR) != 0 ||
		    chk_abs_path(c, n, "approvals.inbox") != 0 ||
		    chk_no_control(c, n, "approvals.inbox") != 0)
			return AL_ERR_FORMAT;
		if (a->nkeys == 0)
			return lctx_err(c, n, "approvals.inbox", "an inbox needs "
			    "approvals.keys: only signed tokens are read "
			    "from it");
		free(a->inbox);
		a->inbox = xstrdup(n->s);
	}
	return 0;
}

static const char *const agent_keys[] = {
	"network", "allowAddresses", "workspace", "home", "homeReadOnly",
	"homeScratch", "env", "limits", "commitApproval", NULL
};

static int
parse_agent(struct lctx *c, const struct ynode *map)
{
	static const char *const wsm[] = { "ro", "rw", "cow", NULL };
	static const char *const cam[] = { "none", "required", NULL };
	struct agent_profile *a = &c->m->agent;
	const struct ynode *n;
	int v = 0;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "agent", agent_keys) != 0)
		return AL_ERR_FORMAT;
	if (parse_net(c, map, "agent", &a->network) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "workspace")) != NULL) {
		if (get_enum(c, n, "agent.workspace", wsm, &v) != 0)
			return AL_ERR_FORMAT;
		a->workspace_writable = v != 0;
		a->workspace_cow = v == 2;
	}
	if ((n = ynode_get(map, "commitApproval")) != NULL) {
		if (get_enum(c, n, "agent.commitApproval", cam, &v) != 0)
			return AL_ERR_FORMAT;
		a->commit_approval = v;
	}
	if ((n = ynode_get(map, "home")) != NULL) {
		if (want(c, n, "agent.home", Y_SCALAR) != 0)
			return AL_ERR_FORMAT;
		if (strcmp(n->s, "tmpfs") != 0) {
			if (chk_abs_path(c, n, "agent.home") != 0 ||
			    get_str(c, n, "agent.home", &a->home) != 0)
				return AL_ERR_FORMAT;
		}
	}
	if ((n = ynode_get(map, "homeReadOnly")) != NULL &&
	    get_strlist(c, n, "agent.homeReadOnly", chk_ws_path, &a->home_ro,
	    &a->nhome_ro) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "homeScratch")) != NULL &&
	    get_strlist(c, n, "agent.homeScratch", chk_home_dir,
	    &a->home_scratch, &a->nhome_scratch) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "env")) != NULL &&
	    get_strlist(c, n, "agent.env", chk_env_name, &a->env_pass,
	    &a->nenv_pass) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "limits")) != NULL &&
	    parse_limits(c, n, "agent.limits", &a->limits) != 0)
		return AL_ERR_FORMAT;
	return 0;
}

/* ---- the whole file ---- */

static const char *const top_keys[] = {
	"tools", "types", "checks", "gates", "dependencyFiles",
	"forbidSideEffects", "runBudget", "sandbox", "approvals", "agent",
	"limits", "output", "escalation", NULL
};

/* The lines that explain a failure (case-insensitive substrings). */
static const char *const default_patterns[] = { "error", "fail", "panic",
	"assert", "traceback", "exception", NULL };

/*
 * output: how much of a result is inline, which lines a failure keeps, how
 * many bytes of artifacts a session keeps.
 */
static int
parse_output(struct lctx *c, const struct ynode *map)
{
	static const char *const ok[] = { "inlineChars", "failurePatterns",
		"artifactQuotaMb", NULL };
	const struct ynode *n;

	if (is_null(map))
		return 0;
	if (check_keys(c, map, "output", ok) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "inlineChars")) != NULL &&
	    get_int(c, n, "output.inlineChars", INLINE_MIN, INLINE_MAX,
	    &c->m->output.inline_chars) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "artifactQuotaMb")) != NULL &&
	    get_int(c, n, "output.artifactQuotaMb", 0, 1048576,
	    &c->m->output.artifact_quota_mb) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(map, "failurePatterns")) != NULL) {
		strv_free(c->m->output.failure_patterns);
		c->m->output.failure_patterns = NULL;
		c->m->output.nfailure_patterns = 0;
		if (get_strlist(c, n, "output.failurePatterns", chk_nonempty,
		    &c->m->output.failure_patterns,
		    &c->m->output.nfailure_patterns) != 0)
			return AL_ERR_FORMAT;
	}
	return 0;
}

static void
defaults(struct manifest *m)
{
	struct sandbox_policy d;
	size_t i;

	budget_defaults(&m->budget);
	sandbox_policy_init_defaults(&m->sandbox);
	m->approvals.approvers = xcalloc(1, sizeof(uid_t));
	m->approvals.ttl_seconds = 900;
	m->approvals.max_asks_per_minute = 16;
	net_init(&m->approvals.notify_net);
	m->approvals.notify_events = NOTIFY_EV_ALL;
	m->approvals.notify_timeout_ms = NOTIFY_TIMEOUT_MS_DEFAULT;
	net_init(&m->agent.network);
	m->agent.env_pass = xcalloc(1, sizeof(char *));
	m->agent.workspace_writable = 0;
	/*
	 * The agent's limits start as the runners', widened for a long-lived
	 * Node or Python agent: no CPU-time limit (the run budget's elapsed
	 * time bounds it), more memory, processes, files and /tmp.
	 */
	sandbox_policy_init_defaults(&d);
	m->agent.limits = d.limits;
	m->agent.limits.cpu_seconds = 0;
	m->agent.limits.memory_mb = 4096;
	m->agent.limits.processes = 512;
	m->agent.limits.open_files = 4096;
	m->agent.limits.tmp_size_mb = 512;
	strv_free(d.read_only);
	strv_free(d.deny_read);
	strv_free(d.protected);
	m->required_gates = xcalloc(1, sizeof(char *));
	m->dependency_files = xcalloc(1, sizeof(char *));
	m->max_frame_bytes = 1048576;
	m->output.inline_chars = 10000;
	m->output.artifact_quota_mb = 256;
	m->output.failure_patterns = xcalloc(7, sizeof(char *));
	for (i = 0; i < 6; i++)
		m->output.failure_patterns[i] = xstrdup(default_patterns[i]);
	m->output.nfailure_patterns = 6;
}

static int
parse_manifest(struct lctx *c, const struct ynode *root)
{
	const struct ynode *n, *g;
	char f[FIELD_MAX];
	int64_t iv;
	size_t i;
	int v;

	if (root == NULL || is_null(root))
		return lctx_err(c, NULL, "manifest", "empty; expected a mapping "
		    "with a tools: list");
	if (check_keys(c, root, "", top_keys) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "types")) != NULL && parse_types(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "checks")) != NULL && parse_checks(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "tools")) == NULL)
		return lctx_err(c, root, "manifest", "missing key \"tools\"");
	if (parse_tools(c, n) != 0 || manifest_escalation_check(c) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "gates")) != NULL && !is_null(n)) {
		static const char *const gk[] = { "required", NULL };

		if (check_keys(c, n, "gates", gk) != 0)
			return AL_ERR_FORMAT;
		if ((g = ynode_get(n, "required")) != NULL &&
		    get_strlist(c, g, "gates.required", chk_check_id,
		    &c->m->required_gates, &c->m->nrequired_gates) != 0)
			return AL_ERR_FORMAT;
	}
	if ((n = ynode_get(root, "dependencyFiles")) != NULL &&
	    get_strlist(c, n, "dependencyFiles", chk_dependency_file,
	    &c->m->dependency_files, &c->m->ndependency_files) != 0)
		return AL_ERR_FORMAT;
	/* Compared with the path a write lands on: "./x" must be "x". */
	for (i = 0; i < c->m->ndependency_files; i++)
		(void)type_path_normalize(c->m->dependency_files[i]);
	if ((n = ynode_get(root, "forbidSideEffects")) != NULL) {
		if (want(c, n, "forbidSideEffects", Y_SEQ) != 0)
			return AL_ERR_FORMAT;
		for (i = 0; i < n->n; i++) {
			if (get_enum(c, n->v[i], fldi(f, "forbidSideEffects", i),
			    side_effect_names, &v) != 0)
				return AL_ERR_FORMAT;
			c->m->forbid_side_effect[v] = 1;
		}
	}
	if ((n = ynode_get(root, "runBudget")) != NULL && parse_budget(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "sandbox")) != NULL && parse_sandbox(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "approvals")) != NULL &&
	    parse_approvals(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "agent")) != NULL && parse_agent(c, n) != 0)
		return AL_ERR_FORMAT;
	c->m->sandbox.agent_home = c->m->agent.home;
	if ((n = ynode_get(root, "output")) != NULL && parse_output(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "escalation")) != NULL &&
	    manifest_escalation_top(c, n) != 0)
		return AL_ERR_FORMAT;
	if ((n = ynode_get(root, "limits")) != NULL && !is_null(n)) {
		static const char *const lk[] = { "maxFrameBytes", "enforce",
		    NULL };

		if (check_keys(c, n, "limits", lk) != 0)
			return AL_ERR_FORMAT;
		if ((g = ynode_get(n, "maxFrameBytes")) != NULL) {
			if (get_int(c, g, "limits.maxFrameBytes", FRAME_MIN,
			    FRAME_MAX, &iv) != 0)
				return AL_ERR_FORMAT;
			c->m->max_frame_bytes = (size_t)iv;
		}
		if ((g = ynode_get(n, "enforce")) != NULL) {
			char *word = NULL;
			int be;

			if (get_str(c, g, "limits.enforce", &word) != 0)
				return AL_ERR_FORMAT;
			be = limits_enforce_parse(word);
			free(word);
			if (be < 0)
				return lctx_err(c, g, "limits.enforce", "expected "
				    "required or best-effort");
			c->m->sandbox.limits.best_effort = be;
			c->m->agent.limits.best_effort = be;
		}
	}
	return 0;
}

int
manifest_load_buffer(const char *name, const char *data, size_t len,
    struct manifest **out, char *err, size_t errlen)
{
	struct lctx c;
	struct manifest *m;
	struct ynode *root = NULL;
	int r;

	*out = NULL;
	if (errlen > 0)
		err[0] = '\0';
	memset(&c, 0, sizeof(c));
	c.file = name;
	c.err = err;
	c.errlen = errlen;
	if (len > MANIFEST_MAX_BYTES) {
		lctx_err(&c, NULL, "manifest", "larger than %d bytes",
		    MANIFEST_MAX_BYTES);
		return AL_ERR_LIMIT;
	}
	m = xcalloc(1, sizeof(*m));
	c.m = m;
	m->path = xstrdup(name);
	crypto_hash_sha256(m->digest, (const unsigned char *)data, len);
	if ((m->types = type_table_new()) == NULL) {
		manifest_free(m);
		return AL_ERR_ALLOC;
	}
	defaults(m);
	if ((r = ytree_parse(&c, data, len, &root)) == 0)
		r = parse_manifest(&c, root);
	ynode_free(root);
	if (r != 0) {
		manifest_free(m);
		return r;
	}
	*out = m;
	return 0;
}

int
manifest_load(const char *path, struct manifest **out, char *err,
    size_t errlen)
{
	struct stat st;
	char *data;
	size_t len = 0;
	ssize_t nr;
	int fd, r;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return AL_ERR_SYSTEM;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, S_ISREG(st.st_mode) ?
		    strerror(errno) : "not a regular file");
		close(fd);
		return AL_ERR_FORMAT;
	}
	data = xcalloc(1, MANIFEST_MAX_BYTES + 2);
	/* Read one byte past the bound so an oversize file is noticed. */
	while (len < MANIFEST_MAX_BYTES + 1) {
		nr = read(fd, data + len, MANIFEST_MAX_BYTES + 1 - len);
		if (nr == -1 && errno == EINTR)
			continue;
		if (nr == -1) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			close(fd);
			free(data);
			return AL_ERR_SYSTEM;
		}
		if (nr == 0)
			break;
		len += (size_t)nr;
	}
	close(fd);
	r = manifest_load_buffer(path, data, len, out, err, errlen);
	free(data);
	return r;
}

int
manifest_load_default(struct manifest **out, char *err, size_t errlen)
{
	return manifest_load_buffer("<default>", airlock_default_manifest,
	    airlock_default_manifest_len, out, err, errlen);
}

static void
fields_free(struct type_field *f, size_t n)
{
	size_t i;

	if (f == NULL)
		return;
	for (i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

void
manifest_free(struct manifest *m)
{
	size_t i, j;

	if (m == NULL)
		return;
	for (i = 0; i < m->ntools; i++) {
		struct tool *t = &m->tools[i];

		free(t->name);
		free(t->description);
		fields_free(t->input, t->ninput);
		fields_free(t->output, t->noutput);
		strv_free(t->command);
		for (j = 0; j < t->nsecrets; j++) {
			free(t->secrets[j].name);
			free(t->secrets[j].env);
			free(t->secrets[j].file);
		}
		free(t->secrets);
		strv_free(t->network.hosts);
		strv_free(t->network.addresses);
		strv_free(t->pin);
		for (j = 0; j < t->jobs.nevents; j++)
			free(t->jobs.events[j].match);
		free(t->jobs.events);
		shrules_free(t->shell_rules);
	}
	free(m->tools);
	for (i = 0; i < m->nchecks; i++) {
		free(m->checks[i].id);
		strv_free(m->checks[i].argv);
		strv_free(m->checks[i].env);
		strv_free(m->checks[i].network.hosts);
		strv_free(m->checks[i].network.addresses);
		strv_free(m->checks[i].pin);
	}
	free(m->checks);
	type_table_free(m->types);
	strv_free(m->required_gates);
	strv_free(m->dependency_files);
	strv_free(m->output.failure_patterns);
	strv_free(m->sandbox.read_only);
	strv_free(m->sandbox.deny_read);
	strv_free(m->sandbox.protected);
	strv_free(m->sandbox.allow_syscalls);
	free(m->approvals.approvers);
	free(m->approvals.approver_groups);
	strv_free(m->approvals.approver_names);
	strv_free(m->approvals.notify);
	strv_free(m->approvals.notify_net.hosts);
	strv_free(m->approvals.notify_net.addresses);
	strv_free(m->approvals.notify_env);
	for (i = 0; i < m->approvals.nkeys; i++)
		free(m->approvals.keys[i].name);
	free(m->approvals.keys);
	free(m->approvals.revoked);
	free(m->approvals.inbox);
	strv_free(m->agent.network.hosts);
	strv_free(m->agent.network.addresses);
	free(m->agent.home);
	strv_free(m->agent.home_ro);
	strv_free(m->agent.home_scratch);
	strv_free(m->agent.env_pass);
	free(m->path);
	free(m);
}

const struct tool *
manifest_tool(const struct manifest *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->ntools; i++)
		if (m->tools[i].name != NULL &&
		    strcmp(m->tools[i].name, name) == 0)
			return &m->tools[i];
	return NULL;
}

const struct check *
manifest_check(const struct manifest *m, const char *id)
{
	size_t i;

	for (i = 0; i < m->nchecks; i++)
		if (m->checks[i].id != NULL && strcmp(m->checks[i].id, id) == 0)
			return &m->checks[i];
	return NULL;
}

int
manifest_check_exists(const char *id, void *m)
{
	return manifest_check(m, id) != NULL;
}

enum authorization
manifest_tool_authorization(const struct manifest *m, const struct tool *t)
{
	if ((unsigned)t->side_effect >= SIDE_EFFECT_COUNT ||
	    m->forbid_side_effect[t->side_effect])
		return AUTHZ_DENY;
	return t->authorization;
}

const char *
side_effect_name(enum side_effect e)
{
	return (unsigned)e < SIDE_EFFECT_COUNT ? side_effect_names[e] : "?";
}

const char *
authorization_name(enum authorization a)
{
	return (unsigned)a <= AUTHZ_APPROVAL ? authz_names[a] : "?";
}

const char *
tool_action_name(enum tool_action a)
{
	return (unsigned)a <= ACTION_JOB_KILL ? action_names[a] : "?";
}
