# docs
dist_man_MANS += docs/airlock-manifest.5
dist_man_MANS += docs/airlock-check.1
