EXTRA_DIST += tests/lib.sh
