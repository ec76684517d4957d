/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * Unit tests for policy/suggest: rows of log records in the shared
 * denial contract's form (docs/DENIALS.md), the plan they must give as
 * JSON, and for some the manifest text the plan must turn a file into.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <jansson.h>

#include "common/errors.h"
#include "policy/diff.h"
#include "policy/suggest.h"
#include "policy/udiff.h"
#include "policy/yamledit.h"

#define REC(ev, f) "{\"event\":\"" ev "\",\"fields\":" f "}"
#define FS(id, d, p, a) \
	REC("sandbox_denial", \
	    "{\"id\":" id ",\"tool\":" \
	    "\"build\",\"denial\":\"" d \
	    "\",\"layer\":\"filesystem\",\"source\":" \
	    "\"landlock\",\"path\":\"" p "\",\"access\":\"" a \
	    "\",\"hint\":\"h\"}")
#define SC(id, d, s) \
	REC("sandbox_denial", \
	    "{\"id\":" id ",\"tool\":" \
	    "\"build\",\"denial\":\"" d "\",\"layer\":\"syscall\",\"source\":" \
	    "\"seccomp\",\"syscall\":\"" s "\",\"nr\":250}")
#define LIM(id, d, l, v) \
	REC("sandbox_denial", \
	    "{\"id\":" id ",\"tool\":" \
	    "\"build\",\"denial\":\"" d "\",\"layer\":\"limit\",\"source\":" \
	    "\"cgroup\",\"limit\":\"" l "\",\"value\":" v "}")
#define NET(id, d, h, p, w) \
	REC("sandbox_denial", \
	    "{\"id\":" id ",\"tool\":" \
	    "\"fetch\",\"denial\":\"" d "\",\"layer\":\"network\",\"source\":" \
	    "\"proxy\",\"host\":\"" h "\",\"port\":" p ",\"allowWith\":\"" w \
	    "\"}")

struct row {
	const char *name;
	const char *records; /* a JSON array */
	int rc;
	const char *plan; /* expected suggest_plan_json, compact,
					   sorted keys (rc == 0) */
	const char *err; /* substring of the error (rc < 0) */
};

static const struct row rows[] = {
	{ "no_denials_no_changes", "[" REC("request", "{\"id\":1}") "]", 0,
	    "{\"changes\":[],\"denials\":0,\"dropped\":0,\"notes\":[]}", NULL },
	{ "same_path_five_times_is_one_value",
	    "[" FS("3", "d1", "/opt/data", "read") "," FS("3", "d2",
		"/opt/data",
		"read") "," FS("5", "d1", "/opt/data", "read") "," FS("7", "d1",
		"/opt/data", "exec") "," FS("7", "d2", "/opt/data", "read") "]",
	    0,
	    "{\"changes\":[{\"key\":\"sandbox.readOnly\",\"kind\":\"add\","
	    "\"layer\":\"filesystem\",\"reason\":\"airlock suggest: allow "
	    "read /opt/data (call 3: d1 d2; call 5: d1; call 7: d1 d2)\","
	    "\"values\":[\"/opt/data\"],\"weakens\":null}],\"denials\":5,\"dropped\":0,"
	    "\"notes\":[]}",
	    NULL },
	{ "exact_path_not_its_parent",
	    "[" FS("1", "d1", "/opt/data/x/file.txt", "read") "]", 0,
	    "{\"changes\":[{\"key\":\"sandbox.readOnly\",\"kind\":\"add\","
	    "\"layer\":\"filesystem\",\"reason\":\"airlock suggest: allow "
	    "read /opt/data/x/file.txt (call 1: d1)\",\"values\":"
	    "[\"/opt/data/x/file.txt\"],\"weakens\":null}],\"denials\":1,\"dropped\":0,"
	    "\"notes\":[]}",
	    NULL },
	{ "write_outside_workspace_is_a_note",
	    "[" FS("2", "d1", "/etc/motd", "write") "]", 0,
	    "{\"changes\":[],\"denials\":1,\"dropped\":0,\"notes\":[{\"layer\":"
	    "\"filesystem\",\"reason\":\"not expressible: writes outside the "
	    "workspace have no manifest key (a one-run escalation or --rw "
	    "only): /etc/motd (call 2: d1)\"}]}",
	    NULL },
	{ "credential_store_read_weakens",
	    "[" FS("4", "d1", "/home/u/.ssh/id_ed25519", "read") "]", 0,
	    "{\"changes\":[{\"key\":\"sandbox.readOnly\",\"kind\":\"add\","
	    "\"layer\":\"filesystem\",\"reason\":\"airlock suggest: allow "
	    "read /home/u/.ssh/id_ed25519 (call 4: d1) # WEAKENS: "
	    "/home/u/.ssh/id_ed25519 is in a credential store (~/.ssh)\","
	    "\"values\":[\"/home/u/.ssh/id_ed25519\"],\"weakens\":"
	    "\"/home/u/.ssh/id_ed25519 is in a credential store (~/.ssh)\"}],"
	    "\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "syscall_added_and_dangerous_one_weakens",
	    "[" SC("1", "d1", "keyctl") "," SC("2", "d1", "sched_setattr") "]",
	    0,
	    "{\"changes\":[{\"key\":\"sandbox.allowSyscalls\",\"kind\":"
	    "\"add\",\"layer\":\"syscall\",\"reason\":\"airlock suggest: "
	    "allow the system call keyctl (call 1: d1), sched_setattr (call "
	    "2: d1) # WEAKENS: keyctl is a dangerous system call\",\"values\":"
	    "[\"keyctl\",\"sched_setattr\"],\"weakens\":\"keyctl is a "
	    "dangerous system call\"}],\"denials\":2,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "limit_raised_to_twice_the_largest_in_force",
	    "[" LIM("1", "d1", "memory", "512") "," LIM(
		"2", "d1", "memory", "512") "]",
	    0,
	    "{\"changes\":[{\"key\":\"sandbox.limits.memoryMb\",\"kind\":"
	    "\"raise\",\"layer\":\"limit\",\"reason\":\"airlock suggest: "
	    "raise sandbox.limits.memoryMb from 512 to 1024, twice the limit "
	    "that stopped (call 1: d1; call 2: d1)\",\"value\":1024,"
	    "\"weakens\":null}],\"denials\":2,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "wall_clock_raises_the_tools_timeout",
	    "[" LIM("1", "d1", "wallClock", "30000") "]", 0,
	    "{\"changes\":[{\"key\":\"tools[build].timeoutMs\",\"kind\":"
	    "\"raise\",\"layer\":\"limit\",\"reason\":\"airlock suggest: "
	    "raise tools[build].timeoutMs from 30000 to 60000, twice the "
	    "limit that stopped (call 1: d1)\",\"tool\":\"build\",\"value\":"
	    "60000,\"weakens\":null}],\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "network_goes_to_the_allow_with_key_exact_host",
	    "[" NET("\"c-9\"", "d1", "api.example.com", "443",
		"tools[0].network (tool fetch)") "]",
	    0,
	    "{\"changes\":[{\"key\":\"tools[0].network\",\"kind\":\"add\","
	    "\"layer\":\"network\",\"reason\":\"airlock suggest: allow "
	    "connections to api.example.com:443 (call c-9: d1) for tool "
	    "fetch\",\"tool\":\"fetch\",\"values\":[\"api.example.com:443\"],"
	    "\"weakens\":null}],\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "egress_record_is_attributed_to_the_running_call",
	    "[" REC("runner_start", "{\"id\":4,\"tool\":\"fetch\"}") "," REC(
		"egress",
		"{\"sandbox\":\"s-1\",\"host\":\"93.184.216.34\","
		"\"port\":80,\"decision\":\"deny\",\"reason\":\"not allowed\","
		"\"allowWith\":\"tools[1].allowAddresses (tool fetch)\"}") "," REC("runner_end",
		"{\"id\":4}") "," REC("egress",
		"{\"host\":\"x\",\"port\":1,\"decision\":\"allow\"}") "]",
	    0,
	    "{\"changes\":[{\"key\":\"tools[1].allowAddresses\",\"kind\":"
	    "\"add\",\"layer\":\"network\",\"reason\":\"airlock suggest: "
	    "allow connections to 93.184.216.34:80 (call 4) for tool fetch\","
	    "\"tool\":\"fetch\",\"values\":[\"93.184.216.34:80\"],\"weakens\":"
	    "null}],\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "network_without_allow_with_goes_to_the_tools_own_key",
	    "[" REC("sandbox_denial",
		"{\"id\":5,\"tool\":\"fetch\","
		"\"denial\":\"d1\",\"layer\":\"network\",\"source\":"
		"\"proxy\",\"host\":\"93.184.216.35\",\"port\":8080}") "]",
	    0,
	    "{\"changes\":[{\"key\":\"tools[fetch].allowAddresses\","
	    "\"kind\":\"add\",\"layer\":\"network\",\"reason\":"
	    "\"airlock suggest: allow connections to 93.184.216.35:8080 (call 5: "
	    "d1) for tool fetch\",\"tool\":\"fetch\",\"values\":"
	    "[\"93.184.216.35:8080\"],\"weakens\":null}],\"denials\":1,"
	    "\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "network_to_a_metadata_or_loopback_address_weakens",
	    "[" NET("6", "d1", "169.254.169.254", "80",
		"tools[0].allowAddresses (tool fetch)") "," NET("6", "d2",
		"127.0.0.1", "2375",
		"tools[0].allowAddresses (tool fetch)") "]",
	    0,
	    "{\"changes\":[{\"key\":\"tools[0].allowAddresses\",\"kind\":"
	    "\"add\",\"layer\":\"network\",\"reason\":\"airlock suggest: "
	    "allow connections to 169.254.169.254:80 (call 6: d1), "
	    "127.0.0.1:2375 (call 6: d2) for tool fetch # WEAKENS: "
	    "169.254.169.254 is a cloud metadata (169.254.169.254) address, "
	    "which only allowAddresses opens; 127.0.0.1 is a loopback "
	    "(127.0.0.0/8) address, which only allowAddresses opens\","
	    "\"tool\":\"fetch\",\"values\":[\"169.254.169.254:80\","
	    "\"127.0.0.1:2375\"],\"weakens\":\"169.254.169.254 is a cloud "
	    "metadata (169.254.169.254) address, which only allowAddresses "
	    "opens; 127.0.0.1 is a loopback (127.0.0.0/8) address, which only "
	    "allowAddresses opens\"}],\"denials\":2,\"dropped\":0,"
	    "\"notes\":[]}",
	    NULL },
	{ "egress_and_broker_records_of_one_refusal_count_once",
	    "[" REC("runner_start", "{\"id\":4,\"tool\":\"fetch\"}") "," REC(
		"egress",
		"{\"sandbox\":\"S-1\",\"host\":\"a.org\","
		"\"port\":443,\"decision\":\"deny\",\"allowWith\":"
		"\"tools[0].network (tool fetch)\"}") "," NET("4", "d1",
		"a.org", "443", "tools[0].network (tool fetch)") "]",
	    0,
	    "{\"changes\":[{\"key\":\"tools[0].network\",\"kind\":\"add\","
	    "\"layer\":\"network\",\"reason\":\"airlock suggest: allow "
	    "connections to a.org:443 (call 4: d1) for tool fetch\",\"tool\":"
	    "\"fetch\",\"values\":[\"a.org:443\"],\"weakens\":null}],"
	    "\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "escalation_is_named_in_the_reason",
	    "[" SC("6", "d1", "io_pgetevents") "," REC("escalation_request",
		"{\"id\":7,\"callId\":6,\"tool\":\"build\",\"widening\":[{"
		"\"denial\":\"d1\",\"layer\":\"syscall\",\"syscall\":"
		"\"io_pgetevents\"}],\"reason\":\"r\",\"approval\":\"a-1\"}") "," REC("escalation_decision",
		"{\"id\":7,\"callId\":6,\"outcome\":"
		"\"approved\"}") "]",
	    0,
	    "{\"changes\":[{\"key\":\"sandbox.allowSyscalls\",\"kind\":"
	    "\"add\",\"layer\":\"syscall\",\"reason\":\"airlock suggest: "
	    "allow the system call io_pgetevents (call 6: d1, escalation a-1 "
	    "approved)\",\"values\":[\"io_pgetevents\"],\"weakens\":null}],"
	    "\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "refused_escalation_is_named_in_the_reason",
	    "[" FS("8", "d1", "/home/u/.aws/config", "read") "," REC(
		"escalation_refused",
		"{\"id\":9,\"callId\":8,\"reason\":"
		"\"forbidden\",\"class\":\"protected\"}") "]",
	    0,
	    "{\"changes\":[{\"key\":\"sandbox.readOnly\",\"kind\":\"add\","
	    "\"layer\":\"filesystem\",\"reason\":\"airlock suggest: allow "
	    "read /home/u/.aws/config (call 8: d1, escalation refused: "
	    "forbidden protected) # WEAKENS: /home/u/.aws/config is in a "
	    "credential store (~/.aws)\",\"values\":[\"/home/u/.aws/config\"],"
	    "\"weakens\":\"/home/u/.aws/config is in a credential store "
	    "(~/.aws)\"}],\"denials\":1,\"dropped\":0,\"notes\":[]}",
	    NULL },
	{ "hint_only_record_is_a_note",
	    "[" REC("sandbox_denial",
		"{\"id\":2,\"tool\":\"t\",\"hint\":"
		"\"EACCES\"}") "]",
	    0,
	    "{\"changes\":[],\"denials\":1,\"dropped\":0,\"notes\":[{\"layer\":\"unknown\","
	    "\"reason\":\"not expressible: the sandbox refused something the "
	    "runner did not name: tool t: EACCES (call 2)\"}]}",
	    NULL },
	{ "relative_path_is_refused", "[" FS("1", "d1", "etc/x", "read") "]",
	    AL_ERR_FORMAT, NULL, "absolute" },
	{ "unknown_layer_is_refused",
	    "[" REC("sandbox_denial", "{\"id\":1,\"layer\":\"quantum\"}") "]",
	    AL_ERR_FORMAT, NULL, "unknown denial layer" },
	{ "zero_limit_is_refused", "[" LIM("1", "d1", "memory", "0") "]",
	    AL_ERR_FORMAT, NULL, "positive" },
	{ "syscall_name_with_odd_characters_is_refused",
	    "[" SC("1", "d1", "key ctl") "]", AL_ERR_FORMAT, NULL, "syscall" },
	{ NULL, NULL, 0, NULL, NULL }
};

#define NROWS (sizeof(rows) / sizeof(rows[0]) - 1)

static const struct suggest_ctx ctx = { .home = "/home/u",
	.workspace = "/work/ws" };

START_TEST(test_suggest_rows)
{
	const struct row *r = &rows[_i];
	struct suggest_plan *p = NULL;
	json_error_t jerr;
	json_t *recs, *j;
	char err[512] = "", *s;
	int rc;

	recs = json_loads(r->records, 0, &jerr);
	ck_assert_msg(
	    recs != NULL, "%s: bad test JSON: %s", r->name, jerr.text);
	rc = suggest_plan(recs, &ctx, &p, err, sizeof(err));
	ck_assert_msg(
	    rc == r->rc, "%s: rc %d want %d (%s)", r->name, rc, r->rc, err);
	if (rc == 0) {
		j = suggest_plan_json(p);
		s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
		ck_assert_msg(strcmp(s, r->plan) == 0, "%s: got\n%s\nwant\n%s",
		    r->name, s, r->plan);
		free(s);
		json_decref(j);
		suggest_plan_free(p);
	} else {
		ck_assert_ptr_null(p);
		ck_assert_msg(strstr(err, r->err) != NULL,
		    "%s: error \"%s\" lacks \"%s\"", r->name, err, r->err);
	}
	json_decref(recs);
}
END_TEST

/* Reading a parent of a protected place weakens it too. */
START_TEST(test_suggest_weakens_parents_and_deny_read)
{
	static const char *const deny[] = { "/srv/secret" };
	static const char *const prot[] = { "config/keys" };
	static const char *const state[] = { "/var/lib/airlock" };
	static const struct {
		const char *path;
		const char *why; /* NULL: does not weaken */
	} cases[] = {
		{ "/home/u", "holds the home directory" },
		{ "/home", "holds the home directory" },
		{ "/", "holds the home directory" },
		{ "/srv/secret/a", "sandbox.denyRead /srv/secret" },
		{ "/srv", "sandbox.denyRead /srv/secret" },
		{ "/work/ws/config/keys/k", "protected path config/keys" },
		{ "/work/ws/.git/config", ".git" },
		{ "/work", "holds the workspace" },
		{ "/var/lib/airlock/keys", "airlock's own directory" },
		{ "/home/u/.aws/credentials", "credential store (~/.aws)" },
		{ "/home/u/.config/gh/hosts.yml", "(~/.config/gh)" },
		{ "/opt/tool/share", NULL },
		{ "/srv/secrets", NULL },
		{ "/home/u/.sshd", NULL },
	};
	struct suggest_ctx c = ctx;
	struct suggest_plan *p;
	char rec[512], err[256];
	json_t *recs;
	size_t i;

	c.deny_read = deny;
	c.ndeny_read = 1;
	c.protected = prot;
	c.nprotected = 1;
	c.state_dirs = state;
	c.nstate_dirs = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(rec, sizeof(rec),
		    "[{\"event\":\"sandbox_denial\","
		    "\"fields\":{\"id\":1,\"denial\":\"d1\",\"layer\":"
		    "\"filesystem\",\"path\":\"%s\",\"access\":\"read\"}}]",
		    cases[i].path);
		recs = json_loads(rec, 0, NULL);
		ck_assert_int_eq(
		    suggest_plan(recs, &c, &p, err, sizeof(err)), 0);
		ck_assert_uint_eq(p->n, 1);
		if (cases[i].why == NULL)
			ck_assert_msg(p->changes[0].weakens == NULL,
			    "%s: weakens: %s", cases[i].path,
			    p->changes[0].weakens);
		else
			ck_assert_msg(p->changes[0].weakens != NULL &&
				strstr(p->changes[0].weakens, cases[i].why) !=
				    NULL,
			    "%s: weakens \"%s\", want \"%s\"", cases[i].path,
			    p->changes[0].weakens != NULL
				? p->changes[0].weakens
				: "(null)",
			    cases[i].why);
		ck_assert_uint_eq(
		    suggest_plan_weakens(p), cases[i].why != NULL);
		suggest_plan_free(p);
		json_decref(recs);
	}
}
END_TEST

/* The plan applied to a manifest: the edits land by tool name. */
START_TEST(test_suggest_apply_to_manifest)
{
	const char *in = "# the manifest\n"
			 "tools:\n"
			 "  - name: build\n"
			 "    timeoutMs: 30000   # half a minute\n"
			 "  - name: fetch\n"
			 "    network: [\"a.example:443\"]\n"
			 "sandbox:\n"
			 "  limits:\n"
			 "    memoryMb: 2048\n";
	const char *want =
	    "# the manifest\n"
	    "tools:\n"
	    "  - name: build\n"
	    "    # airlock suggest: raise tools[build].timeoutMs from 30000 "
	    "to 60000, twice the limit that stopped (call 1: d2)\n"
	    "    timeoutMs: 60000   # half a minute\n"
	    "  - name: fetch\n"
	    "    # airlock suggest: allow connections to api.example.com:443 "
	    "(call 2: d1) for tool fetch\n"
	    "    network: [\"a.example:443\", \"api.example.com:443\"]\n"
	    "sandbox:\n"
	    "  limits:\n"
	    "    memoryMb: 2048\n"
	    "  # airlock suggest: allow read /opt/data (call 1: d1)\n"
	    "  readOnly:\n"
	    "    - /opt/data\n";
	/* memory 512 -> 1024 is below the 2048 in this file: no change. */
	const char *recs_s = "[" FS("1", "d1", "/opt/data", "read") "," LIM("1",
	    "d2", "wallClock",
	    "30000") "," LIM("1", "d3", "memory", "512") "," NET("2", "d1",
	    "api.example.com", "443", "tools[5].network (tool fetch)") "]";
	struct suggest_plan *p;
	struct yamledit *ye;
	json_t *recs = json_loads(recs_s, 0, NULL);
	char err[512];

	ck_assert_ptr_nonnull(recs);
	ck_assert_int_eq(suggest_plan(recs, &ctx, &p, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    yamledit_new(in, strlen(in), &ye, err, sizeof(err)), 0);
	ck_assert_int_eq(suggest_apply(p, ye, err, sizeof(err)), 3);
	ck_assert_str_eq(yamledit_text(ye, NULL), want);
	yamledit_free(ye);
	/* A manifest without the tool: refused, naming it. */
	ck_assert_int_eq(
	    yamledit_new("tools: []\n", 10, &ye, err, sizeof(err)), 0);
	ck_assert_int_eq(
	    suggest_apply(p, ye, err, sizeof(err)), AL_ERR_NOT_FOUND);
	ck_assert(strstr(err, "no tool named build") != NULL);
	yamledit_free(ye);
	suggest_plan_free(p);
	json_decref(recs);
}
END_TEST

/* udiff: the exact form for a small change. */
START_TEST(test_udiff_writes_hunks_with_context)
{
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";
	const char *b = "1\n2\n3\n4\nnew\n5\n6\n7\n8\n9\n10\n11\n12\n13\n15\n";
	char *d;

	ck_assert_int_eq(
	    udiff_make(a, strlen(a), b, strlen(b), "a/m.yaml", "b/m.yaml", &d),
	    0);
	ck_assert_str_eq(d,
	    "--- a/m.yaml\n+++ b/m.yaml\n"
	    "@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"
	    "@@ -11,5 +12,4 @@\n 11\n 12\n 13\n-14\n 15\n");
	free(d);
	ck_assert_int_eq(
	    udiff_make(a, strlen(a), a, strlen(a), "x", "y", &d), 0);
	ck_assert_str_eq(d, "");
	free(d);
	ck_assert_int_eq(udiff_make("a", 1, "a\nb\n", 4, "a/f", "b/f", &d), 0);
	ck_assert_str_eq(d,
	    "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n"
	    "\\ No newline at end of file\n+a\n+b\n");
	free(d);
}
END_TEST

/*
 * udiff round trip: random edits of a file, diffed, then applied by the
 * strict patch engine (policy/diff.h), give the edited file back.
 */
START_TEST(test_udiff_round_trips_through_the_patch_engine)
{
	char a[4096], b[4096], err[512], *d, *res;
	size_t alen, blen, reslen, i, n;
	struct diff *pd;
	unsigned seed = 12345;

	for (n = 0; n < 300; n++) {
		alen = blen = 0;
		for (i = 0; i < 60; i++) {
			int r =
			    (int)((seed = seed * 1103515245 + 12345) >> 16) %
			    10;

			alen += (size_t)snprintf(
			    a + alen, sizeof(a) - alen, "line %zu\n", i % 7);
			if (r == 0)
				continue; /* removed */
			if (r == 1)
				blen += (size_t)snprintf(b + blen,
				    sizeof(b) - blen, "added %zu\n", i);
			blen += (size_t)snprintf(
			    b + blen, sizeof(b) - blen, "line %zu\n", i % 7);
		}
		ck_assert_int_eq(
		    udiff_make(a, alen, b, blen, "a/f.yaml", "b/f.yaml", &d),
		    0);
		if (d[0] == '\0') {
			ck_assert(alen == blen && memcmp(a, b, alen) == 0);
			free(d);
			continue;
		}
		ck_assert_msg(
		    diff_parse(d, strlen(d), &pd, err, sizeof(err)) == 0,
		    "round %zu: %s\n%s", n, err, d);
		ck_assert_int_eq(diff_apply_file(pd, 0, a, alen, &res, &reslen,
				     err, sizeof(err)),
		    0);
		ck_assert(reslen == blen && memcmp(res, b, blen) == 0);
		free(res);
		diff_free(pd);
		free(d);
	}
}
END_TEST

/* Past the caps, denials are counted as left out, never silently lost. */
START_TEST(test_suggest_counts_what_it_leaves_out)
{
	struct suggest_plan *p;
	json_t *recs = json_array();
	char err[256], path[64];
	size_t i;

	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/srv/f%zu", i);
		json_array_append_new(recs,
		    json_pack("{s:s, s:{s:i, s:s, s:s, s:s, s:s}}", "event",
			"sandbox_denial", "fields", "id", 1, "denial", "d1",
			"layer", "filesystem", "path", path, "access", "read"));
	}
	ck_assert_int_eq(suggest_plan(recs, &ctx, &p, err, sizeof(err)), 0);
	ck_assert_uint_eq(p->denials, 300);
	ck_assert_uint_eq(p->dropped, 300 - 256);
	ck_assert_uint_eq(p->changes[0].nvalues, 256);
	suggest_plan_free(p);
	json_decref(recs);
}
END_TEST

static Suite *
suggest_suite(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_suggest_rows, 0, NROWS);
	tcase_add_test(tc, test_suggest_weakens_parents_and_deny_read);
	tcase_add_test(tc, test_suggest_apply_to_manifest);
	tcase_add_test(tc, test_suggest_counts_what_it_leaves_out);
	tcase_add_test(tc, test_udiff_writes_hunks_with_context);
	tcase_add_test(tc, test_udiff_round_trips_through_the_patch_engine);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suggest_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
