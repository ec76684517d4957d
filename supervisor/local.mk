libairlock_a_SOURCES += supervisor/commands.h
