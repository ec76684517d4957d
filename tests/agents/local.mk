# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# The four real agent CLIs (Claude Code, Codex, Gemini CLI, opencode)
# driven end to end by tests/agents/mockmodel.py, a scripted model that
# makes each call airlock's MCP tools (issue 10).  Not part of `make
# check`: run `make check-agents`.  It first runs tests/agents/install.sh
# (npm install -g at the pinned versions, only when they differ; skipped
# when the registry cannot be reached).
#
#   make check-agents                        all four, under airlock run (sandbox, proxy)
#   make check-agents AGENTS="claude codex"  some
#
# As root it also runs Claude Code as uid 4242 with the profile as
# shipped (its home falls back to the user's state directory).
#
#   make check-agents AGENTS_MODE=serve      with airlock serve as their MCP server, unsandboxed
EXTRA_DIST += tests/agents
AGENTS = claude codex gemini opencode
AGENTS_MODE = run

check-agents: airlock
	@$(SHELL) $(srcdir)/tests/agents/install.sh; rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 77 ]; then exit $$rc; fi; \
	passed=; failed=; skipped=; \
	for a in $(AGENTS); do \
	  echo "== $$a"; \
	  AIRLOCK='$(abs_top_builddir)/airlock' top_srcdir='$(abs_top_srcdir)' \
	    top_builddir='$(abs_top_builddir)' \
	    $(SHELL) $(srcdir)/tests/agents/run_agent.sh --mode $(AGENTS_MODE) $$a; \
	  case $$? in \
	  0) passed="$$passed $$a" ;; \
	  77) skipped="$$skipped $$a" ;; \
	  *) failed="$$failed $$a" ;; \
	  esac; \
	done; \
	if [ "$$(id -u)" = 0 ] && [ -z "$(AGENTS_NONROOT_SKIP)" ]; then \
	  echo "== claude, as uid 4242 (an ordinary user)"; \
	  d=$$(mktemp -d /tmp/airlock-nonroot.XXXXXX); chown 4242:4242 "$$d"; \
	  if setpriv --reuid=4242 --regid=4242 --clear-groups env HOME="$$d" \
	    AIRLOCK='$(abs_top_builddir)/airlock' top_srcdir='$(abs_top_srcdir)' \
	    top_builddir='$(abs_top_builddir)' \
	    $(SHELL) $(srcdir)/tests/agents/run_agent.sh --mode run claude; \
	  then passed="$$passed claude(uid-4242)"; \
	  else failed="$$failed claude(uid-4242)"; fi; \
	  rm -rf "$$d"; \
	fi; \
	echo "check-agents: passed:$${passed:- none}; skipped:$${skipped:- none}; failed:$${failed:- none}"; \
	test -z "$$failed"
.PHONY: check-agents
