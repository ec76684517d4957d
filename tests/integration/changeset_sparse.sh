#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Sparse files in a change set.  The 2 GiB quota counts allocated bytes,
# deliberately (broker/changeset.c; secret_change_set.sh lands 3 GB of
# holes): a sparse file lands with its holes, so the host's disk gets no
# more than the quota.  That holds now that every run's upper layer is a
# tmpfs (an ordinary user's too, changeset_disk_fill.sh), whose files land
# by copy, not by rename: three files of 1023 MiB made with truncate from
# inside airlock exec, as root and uid 4242, land taking next to nothing
# of the host's disk, and one with data after a hole keeps its data.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
chmod 755 "$T"
U=4242

for u in 0 $U; do
	ws="$T/ws$u"
	mkdir -p "$ws" "$T/st$u"
	echo keep >"$ws/keep.txt"
	chown -R "$u:$u" "$ws" "$T/st$u"
	cd "$ws" || exit 1
	# shellcheck disable=SC2016
	out=$(as_uid "$u" "$AIRLOCK" exec --workspace "$ws" -- \
	    sh -c 'for i in 1 2 3; do truncate -s 1023M sparse$i; done; truncate -s 100M hole && echo data | dd of=hole bs=1 seek=50000000 conv=notrunc 2>/dev/null' 2>&1)
	status=$?
	expect_eq "uid $u exec: 3 GiB of holes land (0): $out" "$status" 0
	expect_eq "uid $u exec: each one whole" "$(stat -c %s "$ws/sparse1" "$ws/sparse3" "$ws/hole" 2>/dev/null | tr '\n' ' ')" "1072693248 1072693248 104857600 "
	kb=$(du -ck "$ws"/sparse? "$ws/hole" 2>/dev/null | tail -n 1 | cut -f1)
	check "uid $u exec: they kept their holes on the host ($kb KiB)" test "${kb:-999999}" -lt 1024
	expect_eq "uid $u exec: the data after the hole landed" "$(dd if="$ws/hole" bs=1 skip=50000000 count=4 2>/dev/null)" data
	cd "$T" || exit 1
done
finish
