#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# An approvals notify hook (manifest: approvals.notify) that logs one line
# to syslog (logger).  airlock runs it in its own sandbox with the payload
# on stdin (airlock-manifest(5), "Notify payload"):
#   {"version":1,"event":"created"|"granted"|"denied"|"expired"|"withdrawn",
#    "session":S,"approval":{id,tool,...},"decision":{by,text},
#    "withdrawal":{reason}}
# The fields are read with jq, and only characters an approval id, a
# session id or a manifest's tool name can hold are kept: nothing the
# agent wrote reaches the log line.
#
#   approvals:
#     notify: { command: ["/usr/share/airlock/notify/approval-notify.sh"] }
set -u
payload=$(cat)
field() {	# JQ-FILTER
	printf '%s' "$payload" | jq -r "$1 // \"\"" 2>/dev/null |
	    head -n 1 | LC_ALL=C tr -cd 'A-Za-z0-9._:-'
}
event=$(field .event)
id=$(field .approval.id)
session=$(field .session)
tool=$(field .approval.tool)
case $event in
created) text="airlock: $tool waits for approval $id (session $session): airlock approve $id" ;;
*) text="airlock: approval $id of $tool (session $session) $event" ;;
esac
logger -t airlock-approval -- "$text" 2>/dev/null || true
printf '%s\n' "$text"
exit 0
