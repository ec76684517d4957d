#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The mount API's newer calls from inside a real runner ("airlock exec"),
# called by number.  The default profile is a deny list and libseccomp
# 2.5.4 knows no call past futex_requeue (456): open_tree_attr (467: the
# clone of a mount with mount_setattr's flags changed, open_tree and
# mount_setattr both refused), listmount (458) and statmount (457: the
# mount tree, past /proc's view) reached the kernel, and so did
# quotactl_fd (443, quotactl refused); a deny rule libseccomp could not
# resolve was dropped without a word.  Each is refused now (EPERM, the
# denial named), under both profiles; from the i386 and x32 ABIs the
# filter kills the process, and the hint names the call (it said "?").
. "$top_srcdir/tests/lib.sh"

chmod 755 "$T"
ws="$T/ws"
mkdir -p "$ws"
cp "$top_builddir/tests/escape/probe" "$ws/probe"
chown -R 65534:65534 "$ws"
cd "$ws" || exit 1

run() {
	out=$("$AIRLOCK" exec "$@" 2>&1)
	status=$?
}

NEWER="statmount:457 listmount:458 open_tree_attr:467 quotactl_fd:443"
for sc in $NEWER; do
	name=${sc%%:*}
	run -- ./probe syscall "$sc" native
	expect_contains "default_refuses_${name}" "$out" "$name: errno=EPERM"
	expect_contains "default_names_${name}" "$out" \
	    "airlock: denied: syscall $name (seccomp)"
	run --strict -- ./probe syscall "$sc" native
	expect_contains "strict_refuses_${name}" "$out" "$name: errno=EPERM"
	run -- ./probe syscall "$sc" x32
	expect_eq "x32_${name}_killed_by_sigsys" "$status" 159
	expect_not_contains "x32_${name}_never_returns" "$out" "returned"
	# The kill's hint names the call from the common table (the
	# kernel's record of it may be rate-limited away: no name then).
	expect_not_contains "x32_${name}_hint_not_unnamed" "$out" "(?)"
done

# listmount for real: the whole mount tree (LSMT_ROOT), as a tool would.
run -- python3 -c '
import ctypes, struct
l = ctypes.CDLL(None, use_errno=True)
req = ctypes.create_string_buffer(struct.pack("IIQQQ", 32, 0, 2**64 - 1, 0, 0))
ids = ctypes.create_string_buffer(8 * 64)
print("listmount", l.syscall(458, req, ids, ctypes.c_size_t(64), 0), ctypes.get_errno())'
expect_contains "listmount_of_the_tree_refused" "$out" "listmount -1 1"

# i386 int 0x80: killed (SIGSYS), or a fault first on a kernel without
# the gate; what the host does decides which one to expect.
./probe syscall getpid i386 >/dev/null 2>&1
if [ $? -eq 139 ]; then want=139; else want=159; fi
for sc in $NEWER; do
	name=${sc%%:*}
	run -- ./probe syscall "$sc" i386
	expect_eq "i386_${name}_killed" "$status" "$want"
	expect_not_contains "i386_${name}_never_returns" "$out" "returned"
	expect_not_contains "i386_${name}_hint_not_unnamed" "$out" "(?)"
done

# The last exec's audit writer outlives it, making the next session
# ahead under $AIRLOCK_HOME/spare: the test's clean-up ends it before
# removing the state, which it raced ("rm: cannot remove .../state:
# Directory not empty", one run in four) and left it waiting there.
end_writers_in_T
check "no_writer_left_in_the_state" [ -z "$(writers_in_T)" ]
check "the_state_can_be_removed" rm -rf "$AIRLOCK_HOME"
finish
