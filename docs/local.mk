# docs
dist_man_MANS += docs/airlock-audit.1 docs/airlock-secret.1
EXTRA_DIST += docs/AUDIT.md
