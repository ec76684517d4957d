#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Installs what airlock needs to build and test on Debian 12 (as root), then
# configures and builds it.  Safe to run again: it installs only what is
# missing and reconfigures only when needed.
set -eu
cd "$(dirname "$0")/.."

# Build tools and libraries (each library's -dev package), the test
# framework, and what the tests and benchmarks call (podman, with runc for
# hosts that mix cgroup v1 and v2: tests/integration/deploy_podman.sh; git
# and mercurial, whose planted repositories the write policy refuses;
# pre-commit, whose planted hook entries it refuses).
packages="build-essential autoconf automake pkg-config
libseccomp-dev libcap-ng-dev libyaml-dev libsodium-dev libjansson-dev check
util-linux procps iproute2 diffutils bubblewrap clang jq python3 bash
valgrind cppcheck clang-tidy clang-format mandoc strace git mercurial
pre-commit
podman runc"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "bootstrap: missing packages:$missing (run as root to install)" >&2
		exit 1
	fi
	echo "bootstrap: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	./autogen.sh
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
	./configure --quiet
fi
make -j"$(nproc)" >/dev/null
echo "bootstrap: built ./airlock"
