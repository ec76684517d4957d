#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Notify hook: a Slack-compatible incoming webhook ({"text": ...}).
# The message is built by jq: the tool name (the manifest's), the ids
# (airlock's) and the approver's name and note, and for an escalation
# the session's warnings that its widening reaches the session's host or
# the local network (evidence.escalation.warnings: airlock's words about
# an IP address); nothing the agent wrote (arguments, diff, reason) goes
# into it, and &, < and > are escaped as Slack's mrkdwn wants.  POSTed to $AIRLOCK_SLACK_WEBHOOK_URL with curl.
#
#   approvals:
#     notify:
#       command: ["/usr/share/airlock/notify/slack-webhook.sh"]
#       env: [AIRLOCK_SLACK_WEBHOOK_URL]
#       network: ["hooks.slack.com:443"]
set -eu
: "${AIRLOCK_SLACK_WEBHOOK_URL:?set AIRLOCK_SLACK_WEBHOOK_URL and name it in approvals.notify.env}"
body=$(jq -c '
  def esc: tostring | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;");
  if .version != 1 then error("unknown payload version") else . end |
  (.approval.tool | esc) as $tool | (.approval.id | esc) as $id |
  (.session | esc) as $s |
  ((try .approval.evidence.escalation.warnings catch null) |
    if type == "array" then . else [] end |
    map("\n:warning: escalation \(esc)") | join("")) as $warn |
  {text: (
    if .event == "created" then
      ":lock: `\($tool)` waits for approval `\($id)` (session `\($s)`, expires \(.approval.expiresAt | esc)). Decide with `airlock approve \($id)`, or sign this request with `airlock approve --sign --host-key`.\($warn)"
    elif .event == "granted" then
      ":white_check_mark: approval `\($id)` of `\($tool)` granted by \(.decision.by | esc)"
    elif .event == "denied" then
      ":no_entry: approval `\($id)` of `\($tool)` denied by \(.decision.by | esc): \(.decision.text // "" | esc)"
    elif .event == "withdrawn" then
      ":heavy_multiplication_x: approval `\($id)` of `\($tool)` withdrawn (\(.withdrawal.reason // "" | esc)); nothing ran"
    else
      ":hourglass: approval `\($id)` of `\($tool)` expired; nothing ran"
    end)}')
printf '%s' "$body" | curl -fsS -m 10 -H 'Content-Type: application/json' \
    --data-binary @- "$AIRLOCK_SLACK_WEBHOOK_URL" >/dev/null
echo "posted $(printf '%s' "$body" | jq -r .text | head -c 80)"
