/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * The shell rules in the request path.  The decision is made once, on
 * the exact string the runner will be given (sh -c COMMAND); "ask" sends
 * the call down the ordinary approval path, whose digest binds the
 * human's decision to that string (action_plan: argv).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "broker/shellgate.h"
#include "policy/shrules.h"

enum authorization
shellgate_decide(struct broker *b, struct call *c, json_t **out)
{
	const struct tool *t = c->tool;
	json_t *cmd;
	struct shverdict v;
	enum authorization rule;

	c->shell_rule[0] = '\0';
	if (t->action != ACTION_EXEC || t->shell_rules == NULL)
		return t->authorization;
	cmd = json_object_get(c->args, "command");
	if (!json_is_string(cmd) ||
	    strlen(json_string_value(cmd)) != json_string_length(cmd)) {
		snprintf(c->shell_rule, sizeof(c->shell_rule),
		    "the command "
		    "is not a string without NUL bytes");
		*out = tool_error(
		    "denied", 0, NULL, "%s: %s", t->name, c->shell_rule);
		return AUTHZ_DENY;
	}
	(void)shrules_decide(t->shell_rules, json_string_value(cmd),
	    json_string_length(cmd), b->cfg.workspace, &v);
	if (v.command[0] != '\0')
		snprintf(c->shell_rule, sizeof(c->shell_rule), "%s, on `%s`",
		    v.reason, v.command);
	else
		snprintf(c->shell_rule, sizeof(c->shell_rule), "%s", v.reason);
	switch (v.decision) {
	case SHD_DENY:
		*out = tool_error("denied", 0, NULL,
		    "%s: the shell rules "
		    "deny this command: %s",
		    t->name, c->shell_rule);
		return AUTHZ_DENY;
	case SHD_ASK:
		rule = AUTHZ_APPROVAL;
		break;
	default:
		rule = AUTHZ_ALLOW;
		break;
	}
	if (t->authorization == AUTHZ_DENY)
		return AUTHZ_DENY;
	if (t->authorization == AUTHZ_APPROVAL)
		return AUTHZ_APPROVAL;
	return rule;
}
