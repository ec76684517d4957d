#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# install.sh: install the four agent CLIs that tests/agents drives, at the
# versions their profiles were measured with, with `npm install -g` -- only
# those whose installed version differs (npm's own cache keeps the
# tarballs between runs).
#
# Exit status: 0 when all four are at their pinned versions; 77 (skip)
# when npm is missing or its registry cannot be reached and something is
# still to install; npm's status when an install fails.
set -u

pins="@anthropic-ai/claude-code@2.1.337
@openai/codex@0.171.0
@google/gemini-cli@0.61.0
opencode-ai@1.18.33"

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
    command -v apt-get >/dev/null 2>&1; then
	echo "install.sh: installing nodejs and npm (apt)"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends nodejs npm >/dev/null
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "install.sh: npm is not installed (Debian: apt-get install nodejs npm): cannot install the agent CLIs" >&2
	exit 77
fi
root=$(npm root -g 2>/dev/null)

todo=
for pin in $pins; do
	pkg=${pin%@*}
	want=${pin##*@}
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$root/$pkg/package.json" 2>/dev/null | head -1)
	if [ "$have" = "$want" ]; then
		echo "install.sh: $pkg $want is installed"
	else
		echo "install.sh: $pkg: ${have:-not installed}, want $want"
		todo="$todo $pin"
	fi
done
[ -z "$todo" ] && exit 0

registry=$(npm config get registry 2>/dev/null)
if ! timeout 30 npm ping >/dev/null 2>&1; then
	echo "install.sh: the npm registry ($registry) cannot be reached: cannot install$todo" >&2
	exit 77
fi
echo "install.sh: npm install -g$todo"
# shellcheck disable=SC2086
npm install -g --no-fund --no-audit $todo
