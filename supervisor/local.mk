libairlock_a_SOURCES += supervisor/commands.h
libairlock_a_SOURCES += supervisor/cmd_exec.c supervisor/cmd_profile.c
