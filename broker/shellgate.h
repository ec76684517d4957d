/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * shellgate: the allow / ask / deny rules of an exec tool applied to one
 * call's command string (policy/shrules.h), before anything runs.
 */
#ifndef AIRLOCK_SHELLGATE_H
#define AIRLOCK_SHELLGATE_H

#include <jansson.h>

#include "broker/broker_int.h"
#include "policy/manifest.h"

/*
 * The authorization that applies to call |c| of an exec tool: the
 * stricter of the tool's own and its shell rules' decision on the
 * "command" argument (allow: AUTHZ_ALLOW, ask: AUTHZ_APPROVAL, deny:
 * AUTHZ_DENY).  A tool without rules: t->authorization, unchanged.  Sets
 * c->shell_rule to the rule that decided, and, for AUTHZ_DENY, *out to a
 * "denied" tool error naming it (caller owns).  A command holding a NUL
 * byte is refused the same way.  Reads the workspace (b->rootfd) only to
 * tell where a recursive removal's operand leads (shrules_decide_fs);
 * writes nothing but c and *out.
 */
enum authorization shellgate_decide(
    struct broker *b, struct call *c, json_t **out);

#endif
