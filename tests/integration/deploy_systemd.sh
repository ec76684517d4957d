#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Deployment (issue 16 item 5): contrib/deploy/airlock@.service passes
# systemd-analyze verify with no warning (a typo in a key would print
# one, which the negative control shows), and airlock.tmpfiles creates
# airlock's directories with the modes docs/DEPLOYMENT.md describes.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
D="$top_srcdir/contrib/deploy"
if ! command -v systemd-analyze >/dev/null || ! command -v systemd-tmpfiles >/dev/null; then
	echo "# systemd-analyze or systemd-tmpfiles is not installed (Debian: apt install systemd); skipped"
	exit 77
fi
airlock_abs=$(cd "$(dirname "$AIRLOCK")" && pwd)/$(basename "$AIRLOCK")
# The unit as installed, with ExecStart naming the built airlock (verify
# checks that the command exists) and without the condition on the
# instance's env file.
sed -e "s|/usr/bin/airlock|$airlock_abs|" -e '/^ConditionPathExists=/d' \
    "$D/airlock@.service" >"$T/airlock@ci.service"
out=$(cd "$T" && systemd-analyze verify --man=no ./airlock@ci.service 2>&1)
rc=$?
expect_eq "systemd-analyze verify accepts airlock@.service" "$rc" 0
expect_eq "... with no warning at all" "$out" ""
sed 's/^Delegate=yes/Delegat=yes/' "$T/airlock@ci.service" >"$T/typo@ci.service"
out=$(cd "$T" && systemd-analyze verify --man=no ./typo@ci.service 2>&1)
expect_contains "the negative control: a misspelt key is reported" "$out" "Unknown key 'Delegat'"
for key in 'Delegate=yes' 'NoNewPrivileges=yes' 'ProtectSystem=strict' 'RuntimeDirectory=airlock' 'StateDirectory=airlock'; do
	check "the unit sets $key" grep -qx "$key" "$D/airlock@.service"
done
# Options that would stop airlock from building sandboxes must be absent
# (docs/DEPLOYMENT.md, "What the unit leaves out").
for key in ProtectKernelTunables ProtectKernelLogs ProtectControlGroups RestrictNamespaces MemoryDenyWriteExecute PrivateUsers ProtectProc; do
	check "the unit does not set $key" bash -c '! grep -q "^$1=" "$2"' _ "$key" "$D/airlock@.service"
done

mkdir -p "$T/root/etc"
printf 'root:x:0:\nairlock-tokens:x:4310:\n' >"$T/root/etc/group"
printf 'root:x:0:0::/root:/bin/sh\n' >"$T/root/etc/passwd"
systemd-tmpfiles --create --root="$T/root" "$D/airlock.tmpfiles" 2>"$T/tmpfiles.err"
expect_eq "systemd-tmpfiles accepts airlock.tmpfiles" "$?" 0
expect_eq "state: /var/lib/airlock 0700 root" "$(stat -c '%a %u' "$T/root/var/lib/airlock")" "700 0"
expect_eq "runtime: /run/airlock 0755 root (never writable by others)" "$(stat -c '%a %u' "$T/root/run/airlock")" "755 0"
expect_eq "inbox: sticky, group-writable, not listable by the group" "$(stat -c '%a %g' "$T/root/var/lib/airlock-inbox")" "1730 4310"
finish
