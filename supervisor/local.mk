libairlock_a_SOURCES += supervisor/commands.h
libairlock_a_SOURCES += supervisor/cmd_check.c
