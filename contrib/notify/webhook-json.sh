#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Notify hook: a generic JSON webhook.  POSTs the notify payload, checked
# by jq (one well-formed JSON object, version 1) and sent as airlock wrote
# it, to $AIRLOCK_NOTIFY_URL with curl.  The receiver gets exactly the
# versioned payload of airlock-manifest(5); a "created" one is also what
# "airlock approve --sign --host-key HOST.PUB" takes on the approver's
# machine (the payload is signed by the session: airlock-approve(1)).
# Not re-encoded: jq writes 1.0 as 1 and rounds integers past 2^53, and
# a request whose arguments changed so no longer matches its digest.
#
#   approvals:
#     notify:
#       command: ["/usr/share/airlock/notify/webhook-json.sh"]
#       env: [AIRLOCK_NOTIFY_URL]
#       network: ["hooks.example.com:443"]
set -eu
: "${AIRLOCK_NOTIFY_URL:?set AIRLOCK_NOTIFY_URL and name it in approvals.notify.env}"
body=$(cat)
printf '%s' "$body" | jq -e 'if .version == 1 then true else error("unknown payload version") end' >/dev/null
printf '%s' "$body" | curl -fsS -m 10 -H 'Content-Type: application/json' \
    --data-binary @- "$AIRLOCK_NOTIFY_URL" >/dev/null
echo "posted $(printf '%s' "$body" | jq -r '.event + " " + .approval.id')"
