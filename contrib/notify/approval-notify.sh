#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approvals notify hook (manifest: approvals.notify).  airlock runs it
# when an approval is requested, with the request as one JSON object on
# stdin: {id, session, tool, arguments, digest, evidence, requestedAt,
# expiresAt}.  This one posts a short message to a chat webhook when
# AIRLOCK_WEBHOOK_URL is set (curl), and always logs to syslog (logger).
#
#   approvals:
#     notify: ["/usr/local/share/airlock/approval-notify.sh"]
set -u
request=$(cat)
# The request begins {"id":..,"session":..,"tool":..; the arguments and
# evidence that follow are the agent's, so a field is taken only from that
# fixed prefix, and only characters that an id, a session id or a
# manifest's tool name can hold are kept: nothing the agent wrote (an
# escape sequence, a bidi control, a look-alike "id") reaches the message.
field() {	# NAME
	printf '%s' "$request" | head -c 512 |
	    sed -n 's/^{"id":"\([^"]*\)","session":"\([^"]*\)","tool":"\([^"]*\)".*/'"$1"'/p' |
	    LC_ALL=C tr -cd 'A-Za-z0-9._:-'
}
id=$(field '\1')
session=$(field '\2')
tool=$(field '\3')
text="airlock: $tool waits for approval $id (session $session): airlock approve $id"
logger -t airlock-approval -- "$text" 2>/dev/null || true
if [ -n "${AIRLOCK_WEBHOOK_URL:-}" ] && command -v curl >/dev/null; then
	curl -fsS -m 10 -H 'Content-Type: application/json' \
	    -d "{\"text\": \"$text\"}" "$AIRLOCK_WEBHOOK_URL" >/dev/null || true
fi
exit 0
