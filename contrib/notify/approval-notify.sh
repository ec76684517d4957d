#!/bin/sh
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
id=$(printf '%s' "$request" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
tool=$(printf '%s' "$request" | sed -n 's/.*"tool":"\([^"]*\)".*/\1/p')
session=$(printf '%s' "$request" | sed -n 's/.*"session":"\([^"]*\)".*/\1/p')
text="airlock: $tool waits for approval $id (session $session): airlock approve $id"
logger -t airlock-approval -- "$text" 2>/dev/null || true
if [ -n "${AIRLOCK_WEBHOOK_URL:-}" ] && command -v curl >/dev/null; then
	curl -fsS -m 10 -H 'Content-Type: application/json' \
	    -d "{\"text\": \"$text\"}" "$AIRLOCK_WEBHOOK_URL" >/dev/null || true
fi
exit 0
