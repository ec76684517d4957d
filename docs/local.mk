# docs
dist_man_MANS += docs/airlock-proxy.1
