#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
#
# tests/package/deb.sh: builds the Debian package from a clean copy of the
# tree (dpkg-buildpackage -us -uc -b), checks it with lintian (no error
# or warning; overrides in debian/airlock.lintian-overrides say why), and
# installs it into a clean root: a debootstrap --variant=minbase bookworm
# root, cached in $AIRLOCK_DEB_ROOT (default /var/cache/airlock-ci/
# bookworm; made once from deb.debian.org, about 3 min), used through an
# overlay so that the cache stays clean.  There it runs "airlock exec --
# true", "airlock check" on every shipped manifest and the demo.
#
# Run from .ci/run (not make check: it needs root, the network the first
# time, and minutes).  AIRLOCK_DEB=FILE skips the build and lintian and
# installs FILE.  Measured on 2 loaded cores (load
# average about 15): 1 min 55 s to 4 min in all (the build 82 to 164 s,
# lintian up to 1 min, install and checks 10 s), plus 4 min 52 s for the
# debootstrap the first time.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
root_cache=${AIRLOCK_DEB_ROOT:-/var/cache/airlock-ci/bookworm}
if [ "$(id -u)" -ne 0 ]; then
	echo "deb.sh: needs root (debootstrap, chroot, mounts)" >&2
	exit 1
fi
need=""
for p in dpkg-dev debhelper devscripts lintian debootstrap fakeroot; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    need="$need $p"
done
if [ -n "$need" ]; then
	echo "deb.sh: installing$need"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $need >/dev/null
fi

W=$(mktemp -d /tmp/airlock-deb.XXXXXX)
trap 'umount -R "$W/root" 2>/dev/null || true; rm -rf "$W"' EXIT
failed=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }

if [ -n "${AIRLOCK_DEB:-}" ]; then
	# A package built already (iterating on the root half of this test).
	deb=$AIRLOCK_DEB
else
	# 1. The package, from the committed and untracked-but-not-ignored files.
	start=$(date +%s)
	mkdir "$W/airlock-src"
	(cd "$top" && git ls-files -co --exclude-standard | tar -cf - -T -) |
	    tar -xf - -C "$W/airlock-src"
	if (cd "$W/airlock-src" && dpkg-buildpackage -us -uc -b) >"$W/build.log" 2>&1; then
		ok "dpkg-buildpackage -us -uc -b builds ($(($(date +%s) - start)) s)"
	else
		notok "dpkg-buildpackage failed:"; tail -30 "$W/build.log"
		exit 1
	fi
	deb=$(ls "$W"/airlock_*_*.deb)

	# 2. lintian: nothing at warning level or above.
	lintian --fail-on warning,error "$W"/airlock_*.changes >"$W/lintian.log" 2>&1
	st=$?
	if [ $st -eq 0 ]; then
		ok "lintian reports no error or warning"
	else
		notok "lintian:"; cat "$W/lintian.log"
	fi
fi

# 3. A clean root: debootstrap once into the cache, then an overlay.
if [ ! -x "$root_cache/bin/sh" ]; then
	start=$(date +%s)
	rm -rf "$root_cache.tmp"
	mkdir -p "$(dirname "$root_cache")"
	debootstrap --variant=minbase bookworm "$root_cache.tmp" \
	    http://deb.debian.org/debian >"$W/debootstrap.log" 2>&1 || {
		echo "deb.sh: debootstrap cannot reach the mirror:" >&2
		tail -5 "$W/debootstrap.log" >&2
		exit 1
	}
	mv "$root_cache.tmp" "$root_cache"
	echo "# debootstrap: $(($(date +%s) - start)) s"
fi
mkdir "$W/root" "$W/upper" "$W/work"
mount -t overlay overlay -o "lowerdir=$root_cache,upperdir=$W/upper,workdir=$W/work" "$W/root"
mount -t proc proc "$W/root/proc"
mount --rbind /dev "$W/root/dev"
mount --make-rslave "$W/root/dev"
mount -t tmpfs tmpfs "$W/root/tmp"
mount -t tmpfs tmpfs "$W/root/run"
mount --rbind /sys "$W/root/sys"
mount --make-rslave "$W/root/sys"
cp /etc/resolv.conf "$W/root/etc/resolv.conf"
cp "$deb" "$W/root/tmp/"
# Into the root by pivot_root in a mount namespace of its own, not chroot:
# the kernel refuses a chrooted process new user namespaces, which every
# airlock sandbox starts with.
in_root() {
	unshare --mount --propagation private --fork /bin/sh -c '
	    cd "$1" && mkdir -p .oldroot && pivot_root . .oldroot &&
	    umount -l /.oldroot && rmdir /.oldroot 2>/dev/null; shift
	    exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	        LANG=C.UTF-8 "$@"' sh "$W/root" "$@"
}

start=$(date +%s)
if in_root sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/'"$(basename "$deb")" >"$W/install.log" 2>&1; then
	ok "the .deb installs into a clean bookworm root with its dependencies ($(($(date +%s) - start)) s)"
else
	notok "apt-get install of the .deb:"; tail -20 "$W/install.log"
	exit 1
fi
if in_root airlock --version | grep -q '^airlock '; then ok "airlock --version"; else notok "airlock --version"; fi
if in_root sh -c 'mkdir -p /tmp/ws && airlock exec --workspace /tmp/ws -- true'; then
	ok "airlock exec -- true in the clean root"
else
	notok "airlock exec -- true in the clean root"
fi
out=$(in_root sh -c 'airlock exec --workspace /tmp/ws --setenv X y -- /bin/sh -c "echo \$X"' 2>&1)
if [ "$out" = y ]; then ok "airlock exec --setenv"; else notok "airlock exec --setenv: $out"; fi
for m in $(in_root sh -c 'ls /usr/share/airlock/manifests/*.yaml /usr/share/airlock/agents/*.yaml'); do
	if in_root airlock check "$m" >"$W/check.log" 2>&1; then
		ok "airlock check $m"
	else
		notok "airlock check $m:"; cat "$W/check.log"
	fi
done
if in_root sh /usr/share/airlock/demo/run.sh >"$W/demo.log" 2>&1 &&
    grep -q "the agent exited with status 0" "$W/demo.log" &&
    grep -q "valid and closed" "$W/demo.log"; then
	ok "the demo runs from the installed package"
else
	notok "the demo:"; cat "$W/demo.log"
fi
for p in airlock airlock-run airlock-deny airlock-manifest; do
	in_root test -f "/usr/share/man/man1/$p.1.gz" -o -f "/usr/share/man/man5/$p.5.gz" &&
	    ok "man page $p installed" || notok "man page $p missing"
done
if in_root dpkg -r airlock >/dev/null 2>&1 && ! in_root test -e /usr/bin/airlock &&
    ! in_root test -e /usr/share/airlock; then
	ok "dpkg -r removes it"
else
	notok "dpkg -r leaves files"
fi
echo "# $failed failed"
[ "$failed" -eq 0 ]
