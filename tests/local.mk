EXTRA_DIST += tests/lib.sh
include tests/integration/local.mk
