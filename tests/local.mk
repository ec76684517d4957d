# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
EXTRA_DIST += tests/lib.sh tests/unit/scratch.h
include tests/integration/local.mk
include tests/agents/local.mk

# harden (issue 6): a long session stays flat; the broker under valgrind.
TESTS += tests/integration/long_session.sh tests/integration/broker_valgrind.sh
EXTRA_DIST += tests/integration/long_session.sh tests/integration/broker_valgrind.sh
EXTRA_DIST += tests/package/deb.sh
