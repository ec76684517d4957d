# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# docs
dist_man_MANS += docs/airlock.1 docs/airlock-run.1 docs/airlock-serve.1 \
	docs/airlock-connect.1 docs/airlock-approve.1 docs/airlock-trace.1 \
	docs/airlock-approver.1
dist_man_MANS += docs/airlock-manifest.5
dist_man_MANS += docs/airlock-check.1
dist_man_MANS += docs/airlock-audit.1 docs/airlock-secret.1
dist_man_MANS += docs/airlock-sessions.1
dist_man_MANS += docs/airlock-suggest.1
EXTRA_DIST += docs/AUDIT.md
dist_man_MANS += docs/airlock-proxy.1
dist_man_MANS += docs/airlock-exec.1 docs/airlock-profile.1
EXTRA_DIST += docs/SANDBOX.md
EXTRA_DIST += docs/WRAPPING.md
# The agent profiles (docs/WRAPPING.md), for an installed airlock.
agentsdir = $(pkgdatadir)/agents
dist_agents_DATA = contrib/agents/claude-code.yaml contrib/agents/codex.yaml \
	contrib/agents/gemini.yaml contrib/agents/gemini-settings.json \
	contrib/agents/opencode.yaml
EXTRA_DIST += docs/OUTPUT.md
dist_man_MANS += docs/airlock-pending.1 docs/airlock-deny.1

# mandoc -Tlint over every page (warnings and worse fail; the two .so
# links are only checked to lead to a page: tests/integration/man_values.sh).
man-lint:
	@st=0; for p in $(dist_man_MANS); do \
	  grep -q '^\.so ' $(srcdir)/$$p && continue; \
	  mandoc -Tlint -Wwarning $(srcdir)/$$p || st=1; \
	done; \
	[ $$st -eq 0 ] && echo "man-lint: $(words $(dist_man_MANS)) pages clean"; \
	exit $$st
.PHONY: man-lint
# Copy-on-write agent sessions.
dist_man_MANS += docs/airlock-diff.1 docs/airlock-commit.1 docs/airlock-discard.1
EXTRA_DIST += docs/OUTPUT.md docs/DEPLOYMENT.md
