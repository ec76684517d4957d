libairlock_a_SOURCES += \
	supervisor/commands.h \
	supervisor/cmd_approve.c \
	supervisor/cmd_connect.c \
	supervisor/cmd_patch_jail.c \
	supervisor/agent_socket.c supervisor/agent_socket.h \
	supervisor/cmd_run.c \
	supervisor/cmd_serve.c \
	supervisor/cmd_trace.c \
	supervisor/service.c supervisor/service.h \
	supervisor/session.c supervisor/session.h \
	supervisor/setup.c supervisor/setup.h \
	supervisor/signals.c supervisor/signals.h
libairlock_a_SOURCES += supervisor/cmd_exec.c supervisor/cmd_profile.c
