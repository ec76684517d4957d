# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# tools: the static checks and the privilege-separation report (issue 6).
#
#   make lint            cppcheck and clang-tidy over the C sources, with
#                        the checked-in .clang-tidy and
#                        tools/cppcheck.supp; fails on any finding
#   make format-check    clang-format --dry-run over FORMAT_FILES (the
#                        files already in the .clang-format style; add
#                        yours when you format them); reports, never edits
#   make privsep-report  line counts of privileged vs confined code, and
#                        the request kinds the broker accepts

LINT_DIRS = common policy broker runner supervisor proxy
LINT_CPPFLAGS = -I$(abs_top_srcdir) -I$(abs_top_builddir) $(SECCOMP_CFLAGS) $(CAPNG_CFLAGS) \
	$(YAML_CFLAGS) $(SODIUM_CFLAGS) $(JANSSON_CFLAGS)
FORMAT_FILES = runner/denywatch.c runner/denywatch.h policy/lefthook.c policy/lefthook.h tests/unit/test_lefthook.c \
	broker/approvalflow.c broker/approvalflow.h \
	policy/syscalls.c policy/syscalls.h \
	broker/runcall.c broker/runcall.h \
	fuzz/fuzz_lefthook.c broker/selfsandbox.c broker/selfsandbox.h supervisor/cmd_approver.c \
	policy/yamledit.c policy/yamledit.h policy/suggest.c policy/suggest.h \
	policy/udiff.c policy/udiff.h supervisor/cmd_suggest.c \
	tests/unit/test_yamledit.c tests/unit/test_suggest.c fuzz/fuzz_yamledit.c \
	broker/notify.c broker/notify.h \
	policy/manifest_sig.c policy/manifest_sig.h \
	tests/unit/test_approver_token.c \
	common/approver_token.c common/approver_token.h \
	tests/unit/test_selfsandbox.c fuzz/replay.c fuzz/fuzz_frame.c \
	fuzz/fuzz_validate.c fuzz/fuzz_manifest.c fuzz/fuzz_path.c \
	fuzz/fuzz_audit.c supervisor/agent_bin.c supervisor/agent_bin.h \
	tests/unit/test_agent_bin.c supervisor/overrides.c supervisor/overrides.h \
	proxy/http.c proxy/http.h tests/unit/test_proxy_http.c \
	proxy/socks.c proxy/socks.h tests/unit/test_proxy_socks.c \
	proxy/tls.c proxy/tls.h tests/unit/test_proxy_tls.c \
	supervisor/agent_socket.c supervisor/agent_socket.h \
	broker/wsjob.c broker/wsjob.h broker/pins.c broker/pins.h tests/unit/test_pins.c \
	broker/landjob.c broker/landjob.h broker/patchland.c broker/patchland.h \
	common/vis.c common/vis.h tests/unit/test_vis.c \
	runner/denials.c runner/denials.h tests/unit/test_runner_denials.c \
	runner/fsdenials.c runner/fsdenials.h \
	fuzz/fuzz_vis.c fuzz/fuzz_proxy.c \
	broker/excerpt.c broker/excerpt.h broker/artifact.c broker/artifact.h \
	broker/output.c broker/output.h tests/unit/test_excerpt.c \
	broker/jobs.c broker/jobs.h broker/jobtext.c broker/jobtext.h \
	broker/fwatch.c broker/fwatch.h \
	broker/jsonout.c broker/jsonout.h tests/unit/test_jsonout.c \
	common/sha256.c common/sha256.h tests/unit/test_sha256.c \
	tests/unit/test_jobtext.c \
	policy/writepolicy.c policy/writepolicy.h tests/unit/test_writepolicy.c \
	policy/seatbelt.c policy/seatbelt.h supervisor/cmd_profile.c \
	tests/unit/test_seatbelt.c tests/unit/test_approval_digest.c \
	broker/changeset.c broker/changeset.h supervisor/cli.c supervisor/cli.h \
	supervisor/exec_audit.c supervisor/exec_audit.h supervisor/cowsession.c \
	supervisor/exec_spare.c supervisor/exec_spare.h \
	supervisor/cowsession.h supervisor/cowrun.c supervisor/cowrun.h \
	supervisor/cowdiff.c supervisor/cowdiff.h supervisor/cmd_cow.c \
	broker/cowview.c broker/cowview.h tests/unit/test_cowsession.c \
	broker/applyjournal.c broker/applyjournal.h supervisor/hostkey.c \
	supervisor/hostkey.h tests/audit_forge.c broker/audit_fields.c \
	broker/audit_fields.h broker/audit_ship.c broker/audit_ship.h common/paths.c \
	common/paths.h bench/audit_key_bench.c supervisor/cmd_sessions.c \
	supervisor/cmd_paths.c broker/wsindex.c broker/wsindex.h \
	broker/wsscan.c broker/wsscan.h \
	broker/wslinks.c broker/wslinks.h \
	bench/wsindex_bench.c tests/unit/test_wsindex.c policy/manifest_limits.c \
	policy/manifest_limits.h policy/shparse.c policy/shparse.h policy/shrules.c \
	policy/shrules.h policy/manifest_rules.c policy/manifest_int.h \
	tests/unit/test_shrules.c fuzz/fuzz_shparse.c broker/shellgate.c \
	broker/shellgate.h bench/bench_shrules.c bench/mcp_pipe.c \
	bench/cgroup_attach.c \
	policy/manifest_escalation.c policy/manifest_tools.c broker/denials.c \
	broker/denials.h \
	broker/escalate.c broker/escalate.h tests/unit/test_broker_denials.c \
	policy/sensitive.c policy/sensitive.h tests/unit/test_sensitive.c \
	broker/reqsig.c broker/reqsig.h \
	supervisor/trustkeys.c supervisor/trustkeys.h \
	common/lookalike.c common/lookalike.h tests/unit/test_lookalike.c \
	common/strlist.c common/strlist.h tests/unit/test_strlist.c

lint: $(BUILT_SOURCES) config.h
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	    --std=c11 --inline-suppr -D__linux__ -D__x86_64__ \
	    --suppressions-list=$(srcdir)/tools/cppcheck.supp \
	    -I$(srcdir) -I$(builddir) \
	    $(LINT_DIRS:%=$(srcdir)/%)
	sh $(srcdir)/tools/lint.sh $(srcdir) $(LINT_CPPFLAGS)
.PHONY: lint

format-check:
	@st=0; for f in $(FORMAT_FILES); do \
	  clang-format --style=file $(srcdir)/$$f | \
	    diff -u $(srcdir)/$$f - >/dev/null || \
	    { echo "format-check: $$f is not in .clang-format style:"; \
	      clang-format --style=file $(srcdir)/$$f | \
	        diff -u $(srcdir)/$$f - | head -20; st=1; }; \
	done; \
	[ $$st -eq 0 ] && echo "format-check: $(words $(FORMAT_FILES)) files clean"; \
	exit $$st
.PHONY: format-check

privsep-report:
	@sh $(srcdir)/tools/privsep-report.sh $(srcdir)
.PHONY: privsep-report

EXTRA_DIST += tools/local.mk tools/privsep-report.sh tools/cppcheck.supp \
	tools/lint.sh tools/lint-baseline.txt .clang-tidy .clang-format \
	docs/PRIVSEP.md docs/SECURITY.md

# make mutants: each mutation of a security invariant in
# tools/mutants/mutants.txt must be caught by the tests mapped to it
# (issue 20).  Rebuilds incrementally; restores the tree on every exit.
# MUTANTS_FLAGS passes options to run.py (.ci/run: --no-baseline, right
# after the whole suite passed on the same tree).
EXTRA_DIST += tools/mutants/run.py tools/mutants/mutants.txt
mutants: all
	top_builddir=$(abs_top_builddir) python3 $(srcdir)/tools/mutants/run.py \
	    --list $(srcdir)/tools/mutants/mutants.txt $(MUTANTS_FLAGS)
.PHONY: mutants
# Every source file carries LICENSE's notice (tools/license-notice.sh adds
# it to new files: sh tools/license-notice.sh .).
license-check:
	@sh $(srcdir)/tools/license-notice.sh --check $(srcdir) && \
	    echo "license-check: every source file carries the ISC notice"
.PHONY: license-check
EXTRA_DIST += tools/license-notice.sh LICENSE
