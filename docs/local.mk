# docs
dist_man_MANS += docs/airlock-exec.1 docs/airlock-profile.1
EXTRA_DIST += docs/SANDBOX.md
