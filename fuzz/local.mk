# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# fuzz: libFuzzer targets, built only by "make fuzz" (needs clang; the
# default build and "make check" do not).  fuzz/run SECONDS runs each.
FUZZ_TARGETS = fuzz/fuzz_frame fuzz/fuzz_validate fuzz/fuzz_manifest \
	fuzz/fuzz_path fuzz/fuzz_diff fuzz/fuzz_audit fuzz/fuzz_vis \
	fuzz/fuzz_shparse fuzz/fuzz_yamledit fuzz/fuzz_gitconfig fuzz/fuzz_lefthook \
	fuzz/fuzz_proxy
# The library sources the targets exercise, compiled once with
# instrumentation (fuzzer-no-link) into fuzz/obj/.
FUZZ_LIB_SRCS = common/buf.c common/errors.c common/log.c common/util.c \
	common/sha256.c common/vis.c broker/jsonrpc.c broker/jsonout.c \
	broker/audit.c broker/audit_verify.c broker/redact.c policy/types.c \
	policy/manifest.c policy/manifest_yaml.c policy/manifest_print.c \
	policy/path.c policy/diff.c policy/sandbox_defaults.c proxy/rules.c \
	policy/shparse.c policy/shrules.c policy/writepolicy.c policy/vcsdirs.c \
	policy/manifest_rules.c \
	policy/manifest_limits.c common/approver_token.c common/paths.c \
	policy/manifest_escalation.c policy/manifest_tools.c common/lookalike.c \
	policy/seccomp_policy.c policy/yamledit.c policy/githooks.c \
	policy/lefthook.c proxy/http.c proxy/socks.c proxy/tls.c \
	common/strlist.c
FUZZ_CC = clang
FUZZ_SAN = address,undefined
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
	-I$(srcdir) -I$(builddir) -DFUZZ_SRCDIR='"$(abs_top_srcdir)"' \
	$(SODIUM_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS)
FUZZ_LIBS = $(SODIUM_LIBS) $(JANSSON_LIBS) $(YAML_LIBS)

fuzz: $(FUZZ_TARGETS)
.PHONY: fuzz

fuzz/obj/.stamp: $(FUZZ_LIB_SRCS:%=$(srcdir)/%) policy/default_manifest.c \
    $(srcdir)/fuzz/local.mk config.h
	$(AM_V_GEN)$(MKDIR_P) fuzz/obj && \
	for s in $(FUZZ_LIB_SRCS:%=$(srcdir)/%) policy/default_manifest.c; do \
	  o=fuzz/obj/$$(echo "$$s" | sed -e 's,^$(srcdir)/,,' -e 's,/,_,g' \
	    -e 's,\.c$$,.o,'); \
	  $(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) \
	    -c "$$s" -o "$$o" || exit 1; \
	done && touch $@

$(FUZZ_TARGETS): fuzz/obj/.stamp $(srcdir)/fuzz/local.mk
	$(AM_V_CCLD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) \
	    -o $@ $(srcdir)/$@.c fuzz/obj/*.o $(FUZZ_LIBS)
fuzz/fuzz_frame: $(srcdir)/fuzz/fuzz_frame.c
fuzz/fuzz_validate: $(srcdir)/fuzz/fuzz_validate.c
fuzz/fuzz_manifest: $(srcdir)/fuzz/fuzz_manifest.c
fuzz/fuzz_path: $(srcdir)/fuzz/fuzz_path.c
fuzz/fuzz_diff: $(srcdir)/fuzz/fuzz_diff.c
fuzz/fuzz_audit: $(srcdir)/fuzz/fuzz_audit.c
fuzz/fuzz_vis: $(srcdir)/fuzz/fuzz_vis.c
fuzz/fuzz_shparse: $(srcdir)/fuzz/fuzz_shparse.c
fuzz/fuzz_yamledit: $(srcdir)/fuzz/fuzz_yamledit.c
fuzz/fuzz_gitconfig: $(srcdir)/fuzz/fuzz_gitconfig.c
fuzz/fuzz_lefthook: $(srcdir)/fuzz/fuzz_lefthook.c
fuzz/fuzz_proxy: $(srcdir)/fuzz/fuzz_proxy.c

clean-local: clean-fuzz
clean-fuzz:
	-rm -rf fuzz/obj $(FUZZ_TARGETS)
.PHONY: clean-fuzz

EXTRA_DIST += fuzz/local.mk fuzz/run fuzz/json.dict fuzz/yaml.dict \
	fuzz/proxy.dict fuzz/fuzz_proxy.c \
	fuzz/fuzz_frame.c fuzz/fuzz_validate.c fuzz/fuzz_manifest.c \
	fuzz/fuzz_path.c fuzz/fuzz_audit.c fuzz/fuzz_vis.c fuzz/corpus \
	fuzz/fuzz_shparse.c fuzz/fuzz_yamledit.c fuzz/fuzz_gitconfig.c \
	fuzz/fuzz_lefthook.c

# make check replays every seed and every regression input (fuzz/regress:
# the crashes the fuzzers found) through each target, compiled with the
# normal compiler and flags (and so under the sanitizers in that build).
FUZZ_REPLAY = fuzz/replay_frame fuzz/replay_validate fuzz/replay_manifest \
	fuzz/replay_path fuzz/replay_diff fuzz/replay_audit fuzz/replay_vis \
	fuzz/replay_shparse fuzz/replay_yamledit fuzz/replay_gitconfig \
	fuzz/replay_lefthook fuzz/replay_proxy
check_PROGRAMS += $(FUZZ_REPLAY)
TESTS += $(FUZZ_REPLAY)
fuzz_replay_cflags = $(AM_CFLAGS) -DFUZZ_SRCDIR='"$(abs_top_srcdir)"'
fuzz_replay_frame_SOURCES = fuzz/replay.c fuzz/fuzz_frame.c
fuzz_replay_frame_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"frame"'
fuzz_replay_frame_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_validate_SOURCES = fuzz/replay.c fuzz/fuzz_validate.c
fuzz_replay_validate_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"validate"'
fuzz_replay_validate_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_manifest_SOURCES = fuzz/replay.c fuzz/fuzz_manifest.c
fuzz_replay_manifest_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"manifest"'
fuzz_replay_manifest_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_path_SOURCES = fuzz/replay.c fuzz/fuzz_path.c
fuzz_replay_path_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"path"'
fuzz_replay_path_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_diff_SOURCES = fuzz/replay.c fuzz/fuzz_diff.c
fuzz_replay_diff_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"diff"'
fuzz_replay_diff_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_audit_SOURCES = fuzz/replay.c fuzz/fuzz_audit.c
fuzz_replay_audit_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"audit"'
fuzz_replay_audit_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_vis_SOURCES = fuzz/replay.c fuzz/fuzz_vis.c
fuzz_replay_vis_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"vis"'
fuzz_replay_vis_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_shparse_SOURCES = fuzz/replay.c fuzz/fuzz_shparse.c
fuzz_replay_shparse_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"shparse"'
fuzz_replay_shparse_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_yamledit_SOURCES = fuzz/replay.c fuzz/fuzz_yamledit.c
fuzz_replay_yamledit_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"yamledit"'
fuzz_replay_yamledit_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_gitconfig_SOURCES = fuzz/replay.c fuzz/fuzz_gitconfig.c
fuzz_replay_gitconfig_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"gitconfig"'
fuzz_replay_gitconfig_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_lefthook_SOURCES = fuzz/replay.c fuzz/fuzz_lefthook.c
fuzz_replay_lefthook_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"lefthook"'
fuzz_replay_lefthook_LDADD = libairlock.a $(AIRLOCK_LIBS)
fuzz_replay_proxy_SOURCES = fuzz/replay.c fuzz/fuzz_proxy.c
fuzz_replay_proxy_CFLAGS = $(fuzz_replay_cflags) -DFUZZ_NAME='"proxy"'
fuzz_replay_proxy_LDADD = libairlock.a $(AIRLOCK_LIBS)
EXTRA_DIST += fuzz/replay.c fuzz/regress
