# runner
libairlock_a_SOURCES += runner/runner.h runner/wait.c
