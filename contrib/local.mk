# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# contrib: what an installed airlock ships besides the binary and the man
# pages (docs/local.mk).  Everything is read from $(pkgdatadir) and the
# other configured directories; "make uninstall" removes all of it.

# The built-in manifest as a file to start from, the approvals notify hook,
# and the README's demo with its example project.
manifestsdir = $(pkgdatadir)/manifests
dist_manifests_DATA = contrib/manifests/default.yaml \
	contrib/manifests/shell-rules.yaml
notifydir = $(pkgdatadir)/notify
dist_notify_SCRIPTS = contrib/notify/approval-notify.sh \
	contrib/notify/webhook-json.sh contrib/notify/slack-webhook.sh \
	contrib/notify/sendmail.sh
demodir = $(pkgdatadir)/demo
dist_demo_SCRIPTS = contrib/demo/run.sh contrib/demo/agent.sh
exampledir = $(pkgdatadir)/example-project
dist_example_DATA = contrib/example-project/README.md
examplesrcdir = $(exampledir)/src
dist_examplesrc_DATA = contrib/example-project/src/todo.sh
exampletestsdir = $(exampledir)/tests
dist_exampletests_SCRIPTS = contrib/example-project/tests/run.sh

# The documentation beyond the man pages.
dist_doc_DATA = README.md LICENSE docs/AUDIT.md docs/OUTPUT.md \
	docs/PATCHES.md docs/PERFORMANCE.md docs/PRIVSEP.md docs/PROXY.md \
	docs/SANDBOX.md docs/SECURITY.md docs/WRAPPING.md docs/DEPLOYMENT.md \
	docs/DENIALS.md docs/ESCALATION.md

# systemd: the tmpfiles.d entry for root's state and runtime directories,
# and any unit files in contrib/deploy/ (installed when present).
tmpfiles_DATA = contrib/tmpfiles.d/airlock.conf
EXTRA_DIST += contrib/tmpfiles.d/airlock.conf
install-data-local: install-deploy-units
uninstall-local: uninstall-deploy-units
install-deploy-units:
	@for f in $(srcdir)/contrib/deploy/*.service \
	    $(srcdir)/contrib/deploy/*.socket $(srcdir)/contrib/deploy/*.timer; do \
	  [ -f "$$f" ] || continue; \
	  $(MKDIR_P) '$(DESTDIR)$(systemdsystemunitdir)' && \
	  echo " $(INSTALL_DATA) $$f '$(DESTDIR)$(systemdsystemunitdir)'" && \
	  $(INSTALL_DATA) "$$f" '$(DESTDIR)$(systemdsystemunitdir)' || exit 1; \
	done
uninstall-deploy-units:
	@for f in $(srcdir)/contrib/deploy/*.service \
	    $(srcdir)/contrib/deploy/*.socket $(srcdir)/contrib/deploy/*.timer; do \
	  [ -f "$$f" ] || continue; \
	  rm -f '$(DESTDIR)$(systemdsystemunitdir)'/"$$(basename "$$f")"; \
	done
.PHONY: install-deploy-units uninstall-deploy-units

# Shell completions.
bashcompletion_DATA = contrib/completions/airlock
zshcompletion_DATA = contrib/completions/_airlock
EXTRA_DIST += contrib/completions/airlock contrib/completions/_airlock

# distcheck installs under its own prefix: the systemd and completion
# directories follow it there rather than into the build machine's /lib.
AM_DISTCHECK_CONFIGURE_FLAGS = \
	--with-systemdsystemunitdir='$${prefix}/lib/systemd/system' \
	--with-tmpfilesdir='$${prefix}/lib/tmpfiles.d' \
	--with-bashcompletiondir='$${datadir}/bash-completion/completions' \
	--with-zshcompletiondir='$${datadir}/zsh/site-functions'

# The installation directories, for tests/integration/install.sh.
print-install-dirs:
	@echo "bindir=$(bindir)"; echo "man1dir=$(man1dir)"; \
	echo "man5dir=$(man5dir)"; echo "pkgdatadir=$(pkgdatadir)"; \
	echo "docdir=$(docdir)"; echo "tmpfilesdir=$(tmpfilesdir)"; \
	echo "systemdsystemunitdir=$(systemdsystemunitdir)"; \
	echo "bashcompletiondir=$(bashcompletiondir)"; \
	echo "zshcompletiondir=$(zshcompletiondir)"
.PHONY: print-install-dirs
EXTRA_DIST += debian
