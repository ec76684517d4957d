# docs
dist_man_MANS += docs/airlock.1 docs/airlock-run.1 docs/airlock-serve.1 \
	docs/airlock-connect.1 docs/airlock-approve.1 docs/airlock-trace.1
dist_man_MANS += docs/airlock-manifest.5
dist_man_MANS += docs/airlock-check.1
dist_man_MANS += docs/airlock-audit.1 docs/airlock-secret.1
dist_man_MANS += docs/airlock-sessions.1
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
