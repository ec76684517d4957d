#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# bench/wsindex.sh [-r ROUNDS] [-s SIZES] [DIR]: the workspace index
# (broker/wsindex.h) side by side with git status and sha256sum, on
# trees of SIZES files (default "1000 10000 100000 1000000") and a copy of
# /usr/include, generated under DIR (default /var/tmp/airlock-wsindex,
# kept between runs: the 1M tree takes minutes to make).
#
# For each tree and each of ROUNDS rounds (default 5), in an order that
# rotates every round:
#   first    wsindex: the first full digest (empty index), warm cache
#   noop     wsindex: a refresh with nothing changed (past the racy window)
#   sealed   the same with the seal (an agent that writes the workspace)
#   changed  wsindex: a refresh after 10 files changed (one byte each)
#   gitst    git status on a git repository of the same files
#   sha      find . -path ./.git -prune -o -type f -print0 | xargs -0 sha256sum
# and prints the median and range of each, and the ratios noop/gitst,
# first/sha, changed-noop.  Files of trees up to 100k are 4 KiB of random
# bytes; the 1M tree's are 1 KiB (4 GiB of data would not leave the
# machine usable), in directories of 1000.
set -eu
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/.." && pwd)}
rounds=5
sizes="1000 10000 100000 1000000"
while getopts r:s: o; do
	case $o in
	r) rounds=$OPTARG ;;
	s) sizes=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-s SIZES] [DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
dir=${1:-/var/tmp/airlock-wsindex}
mkdir -p "$dir"
make -C "$top_builddir" -s bench/wsindex_bench >/dev/null
B="$top_builddir/bench/wsindex_bench"

# gen N: a tree of N files (a git repository of the same files).
gen() {
	t="$dir/t$1"
	[ -f "$t/.done" ] && return 0
	rm -rf "$t"
	mkdir -p "$t"
	sz=4096
	[ "$1" -ge 1000000 ] && sz=1024
	python3 - "$t" "$1" "$sz" <<'EOF'
import os, sys
root, n, sz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.mkdir(d)
    with open(os.path.join(d, "f%04d.c" % (i % 1000)), "wb") as f:
        f.write(os.urandom(sz))
EOF
	(cd "$t" && git init -q && git add -A && git -c user.name=b \
	    -c user.email=b@b commit -qm tree)
	touch "$t/.git/.done" "$t/.done"
}
gen_usr() {
	t="$dir/usrinclude"
	[ -f "$t/.done" ] && return 0
	rm -rf "$t"
	cp -a /usr/include "$t"
	(cd "$t" && git init -q && git add -A && git -c user.name=b \
	    -c user.email=b@b commit -qm tree)
	touch "$t/.git/.done" "$t/.done"
}

trees=
for n in $sizes; do gen "$n"; trees="$trees t$n"; done
gen_usr
trees="$trees usrinclude"

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, order rotated; ms"
# The .done marker is not part of the workspace's files but is in the
# tree; git status sees it as untracked, as it would any file.
for t in $trees; do
	p="$dir/$t"
	(cd "$p" && git status >/dev/null)	# warm the cache and git's index
	# Ten files to change, spread over the tree.
	files=$(cd "$p" && find . -path ./.git -prune -o -type f -name '*.c' -print |
	    awk 'NR % 97 == 1' | head -10 | tr '\n' ' ')
	[ -n "$files" ] || files=$(cd "$p" && find . -path ./.git -prune -o \
	    -type f -print | head -10 | tr '\n' ' ')
	out=$(mktemp)
	r=0
	while [ $r -lt "$rounds" ]; do
		for k in 0 1 2; do
			case $(((k + r) % 3)) in
			0) (cd "$p" && $B index . $files) ;;
			1) printf 'gitst %s\n' "$(cd "$p" && $B time git status --porcelain)" ;;
			2) printf 'sha %s\n' "$(cd "$p" && $B time sh -c \
			    "find . -path ./.git -prune -o -type f -print0 | xargs -0 sha256sum")" ;;
			esac
		done >>"$out"
		r=$((r + 1))
	done
	awk -v tree="$t" '
	function med(k,   n, i, j, t, a) {
		n = cnt[k]
		for (i = 1; i <= n; i++) a[i] = v[k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		lo[k] = a[1]; hi[k] = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == "files" { files = $2; mem = $4; next }
	{ cnt[$1]++; v[$1, cnt[$1]] = $2 }
	END {
		for (k in cnt) m[k] = med(k)
		printf "%-11s files %-8d index %6.1f MiB (%.0f B/file)\n", tree, files, mem / 1048576, files ? mem / files : 0
		split("first noop sealed changed gitst sha", ks, " ")
		for (i = 1; i <= 5; i++) { k = ks[i]; printf "  %-8s median %9.1f  range %9.1f-%-9.1f\n", k, m[k], lo[k], hi[k] }
		printf "  noop/gitst %.2fx   sealed/gitst %.2fx   first/sha %.2fx   changed-noop %+.1f ms\n", m["noop"] / m["gitst"], m["sealed"] / m["gitst"], m["first"] / m["sha"], m["changed"] - m["noop"]
	}' "$out"
	rm -f "$out"
done
