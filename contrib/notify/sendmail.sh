#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Notify hook: mail through sendmail(8).  The subject is built by jq from
# airlock's fields only (event, tool, approval id), with every control
# character replaced, so nothing can inject a header; the body is the
# payload, pretty-printed by jq, to read; jq writes 1.0 as 1 and rounds
# integers past 2^53, so a request whose arguments hold such numbers no
# longer matches its digest: sign those from "airlock pending --json"
# or the JSON webhook's payload.  An approver can save it and run
# "airlock approve --sign --key KEY --host-key HOST.PUB FILE" on their own
# machine (HOST.PUB: this host's "airlock audit key").
#
#   approvals:
#     notify:
#       command: ["/usr/share/airlock/notify/sendmail.sh"]
#       env: [AIRLOCK_NOTIFY_MAIL_TO, AIRLOCK_SENDMAIL]
# AIRLOCK_SENDMAIL defaults to /usr/sbin/sendmail; the sandbox must let
# it deliver (a local MTA's queue, or network to a relay).
set -eu
: "${AIRLOCK_NOTIFY_MAIL_TO:?set AIRLOCK_NOTIFY_MAIL_TO and name it in approvals.notify.env}"
payload=$(jq -c 'if .version == 1 then . else error("unknown payload version") end')
clean() { LC_ALL=C tr -c 'A-Za-z0-9 ._:@,+=/-' '_'; }
subject=$(printf '%s' "$payload" | jq -r '"airlock: approval \(.approval.id) of \(.approval.tool) \(.event)"' | head -n 1 | clean)
to=$(printf '%s' "$AIRLOCK_NOTIFY_MAIL_TO" | head -n 1 | clean)
{
	printf 'To: %s\n' "$to"
	printf 'Subject: %s\n' "$subject"
	printf 'Content-Type: application/json; charset=us-ascii\n'
	printf 'MIME-Version: 1.0\n\n'
	printf '%s' "$payload" | jq .
} | ${AIRLOCK_SENDMAIL:-/usr/sbin/sendmail} -t -i
echo "mailed $subject"
