#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Generates configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf --install --force >/dev/null
