/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * probe: tries ONE escape from inside a runner and reports how it failed.
 *
 * Usage: probe ATTACK [ARG...].  Prints one line "ATTACK: ok" when the
 * attack worked (an escape), or "ATTACK: errno=NAME" with the errno it
 * failed with; attacks that should be killed (a foreign ABI) print
 * nothing after "trying" and die by the signal, which the test sees in
 * airlock's exit status (128 + signal).
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static int
report(const char *attack, int rc)
{
	if (rc >= 0)
		printf("%s: ok\n", attack);
	else
		printf("%s: errno=%s\n", attack, strerrorname_np(errno));
	fflush(stdout);
	return rc >= 0 ? 0 : 1;
}

static long
i386_syscall(long nr)
{
	long ret;

	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(nr), "b"(0), "c"(0),
	    "d"(0), "S"(0), "D"(0) : "memory");
	return ret;
}

/*
 * NAME:NR names a call by its number, for one newer than libseccomp
 * (every ABI numbers those alike); -1 if |name| has no ":NR".
 */
static int
given_number(char *name)
{
	char *colon, *end;
	long nr;

	if ((colon = strchr(name, ':')) == NULL)
		return -1;
	*colon = '\0';
	nr = strtol(colon + 1, &end, 10);
	return *end == '\0' && nr >= 0 ? (int)nr : -1;
}

static int
cmd_syscall(char *name, const char *entry)
{
	int nr, given = given_number(name);
	long rc;

	if (strcmp(entry, "i386") == 0) {
		nr = given >= 0 ? given :
		    seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, name);
		if (nr < 0)
			nr = 20;	/* getpid: any i386 call must die */
		printf("%s/i386: trying\n", name);
		fflush(stdout);
		rc = i386_syscall(nr);
		printf("%s/i386: returned %ld\n", name, rc);
		return 0;
	}
	nr = given >= 0 ? given : seccomp_syscall_resolve_name(name);
	if (nr < 0) {
		printf("%s: unknown\n", name);
		return 2;
	}
	if (strcmp(entry, "x32") == 0) {
		printf("%s/x32: trying\n", name);
		fflush(stdout);
		rc = syscall(nr | 0x40000000, 0, 0, 0, 0, 0, 0);
		printf("%s/x32: returned %ld errno=%s\n", name, rc,
		    strerrorname_np(errno));
		return 0;
	}
	/* Arguments that would do harm if the call went through. */
	if (strcmp(name, "clone") == 0)
		rc = syscall(nr, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
	else if (strcmp(name, "unshare") == 0)
		rc = syscall(nr, CLONE_NEWUSER | CLONE_NEWNS);
	else if (strcmp(name, "personality") == 0)
		rc = syscall(nr, 0x0040000);	/* ADDR_NO_RANDOMIZE */
	else if (strcmp(name, "socket") == 0)
		rc = syscall(nr, AF_NETLINK, SOCK_RAW, 0);
	else if (strcmp(name, "socketpair") == 0) {
		/* The family's create runs before its socketpair op says
		 * EOPNOTSUPP (AF_TIPC's pairs them). */
		int sv[2];

		rc = syscall(nr, AF_NETLINK, SOCK_RAW, 0, sv);
	} else if (strcmp(name, "reboot") == 0)
		rc = syscall(nr, 0, 0, 0, 0);	/* bad magic: harmless */
	else if (strcmp(name, "ioctl") == 0)
		rc = syscall(nr, 0, TIOCSTI, "x");
	else
		rc = syscall(nr, 0, 0, 0, 0, 0, 0);
	return report(name, rc);
}

/*
 * Runs |argv| (outside any runner: airlock itself) as on a kernel that
 * lacks the system call |name|: it answers ENOSYS.
 */
static int
cmd_enosys(const char *name, char **argv)
{
	scmp_filter_ctx ctx;
	int nr;

	if ((nr = seccomp_syscall_resolve_name(name)) < 0 ||
	    (ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0 ||
	    seccomp_load(ctx) != 0) {
		printf("enosys %s: cannot load the filter\n", name);
		return 2;
	}
	execvp(argv[0], argv);
	return report("enosys", -1);
}

static int
cmd_connect_tcp(int port)
{
	struct sockaddr_in sin;
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return report("connect-tcp", -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return report("connect-tcp", connect(fd, (struct sockaddr *)&sin,
	    sizeof(sin)));
}

static int
cmd_connect_abstract(const char *name)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return report("connect-abstract", -1);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path + 1, name, sizeof(sun.sun_path) - 2);
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name);
	return report("connect-abstract", connect(fd, (struct sockaddr *)&sun,
	    len));
}

static int __attribute__((noreturn))
cmd_escape_timeout(void)
{
	int i;

	/* Children that ignore every catchable signal and leave the
	 * session: only killing the whole tree stops them. */
	for (i = 0; i < 3; i++) {
		if (fork() == 0) {
			setsid();
			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			signal(SIGINT, SIG_IGN);
			if (fork() == 0)
				for (;;)
					pause();
			for (;;)
				pause();
		}
	}
	signal(SIGTERM, SIG_IGN);
	for (;;)
		pause();
}

static int __attribute__((noreturn))
cmd_fork_bomb(void)
{
	for (;;)
		if (fork() == -1)
			(void)0;
}

/* Each chunk escapes through here, so no compiler drops the allocations. */
static char *volatile memory_bomb_sink;

static int
cmd_memory_bomb(void)
{
	size_t chunk = 64 << 20;
	char *p;

	for (;;) {
		if ((p = malloc(chunk)) == NULL)
			return report("memory-bomb", -1);
		memset(p, 1, chunk);
		memory_bomb_sink = p;
	}
}

static int
cmd_fill(const char *path)
{
	static char buf[1 << 20];
	int fd;

	signal(SIGXFSZ, SIG_IGN);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		return report("fill", -1);
	memset(buf, 'x', sizeof(buf));
	for (;;)
		if (write(fd, buf, sizeof(buf)) == -1)
			return report("fill", -1);
}

/* Empty files in |dir| until a create fails (or 100000 of them). */
static int
cmd_inodes(const char *dir)
{
	char path[4096];
	int fd, n;

	for (n = 0; n < 100000; n++) {
		snprintf(path, sizeof(path), "%s/i%d", dir, n);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) == -1)
			break;
		close(fd);
	}
	printf("inodes: %d files\n", n);
	return report("inodes", n < 100000 ? -1 : 0);
}

int
main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(a, "write") == 0)
		return report(a, open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	if (strcmp(a, "read") == 0)
		return report(a, open(arg, O_RDONLY));
	if (strcmp(a, "rename") == 0 && argc > 3)
		return report(a, rename(arg, argv[3]));
	if (strcmp(a, "connect-tcp") == 0)
		return cmd_connect_tcp(atoi(arg));
	if (strcmp(a, "connect-abstract") == 0)
		return cmd_connect_abstract(arg);
	if (strcmp(a, "ptrace") == 0)
		return report(a, ptrace(PTRACE_ATTACH, atoi(arg), 0, 0));
	if (strcmp(a, "kill") == 0)
		return report(a, kill(atoi(arg), SIGTERM));
	if (strcmp(a, "open-rw") == 0)
		return report(a, open(arg, O_RDWR));
	if (strcmp(a, "enosys") == 0 && argc > 3)
		return cmd_enosys(arg, argv + 3);
	if (strcmp(a, "syscall") == 0 && argc > 3)
		return cmd_syscall(argv[2], argv[3]);
	if (strcmp(a, "tiocsti") == 0) {
		if (!isatty(0)) {
			printf("tiocsti: stdin is not a tty\n");
			return 2;
		}
		return report(a, ioctl(0, TIOCSTI, "x"));
	}
	if (strcmp(a, "tioclinux") == 0) {
		char sub = 3;

		return report(a, ioctl(0, TIOCLINUX, &sub));
	}
	if (strcmp(a, "tiocsetd") == 0) {
		int ldisc = 27;	/* N_NULL: the terminal's input is dropped */

		if (!isatty(0)) {
			printf("tiocsetd: stdin is not a tty\n");
			return 2;
		}
		return report(a, ioctl(0, TIOCSETD, &ldisc));
	}
	if (strcmp(a, "tiocexcl") == 0) {
		if (!isatty(0)) {
			printf("tiocexcl: stdin is not a tty\n");
			return 2;
		}
		return report(a, ioctl(0, TIOCEXCL));
	}
	if (strcmp(a, "exec") == 0 && argc > 2) {
		execv(arg, argv + 2);
		return report(a, -1);
	}
	if (strcmp(a, "ids") == 0) {
		printf("ids: uid=%d euid=%d gid=%d egid=%d\n", (int)getuid(),
		    (int)geteuid(), (int)getgid(), (int)getegid());
		return 0;
	}
	if (strcmp(a, "capset") == 0) {
		memset(&hdr, 0, sizeof(hdr));
		memset(data, 0, sizeof(data));
		hdr.version = _LINUX_CAPABILITY_VERSION_3;
		data[0].effective = data[0].permitted =
		    1U << CAP_SYS_ADMIN | 1U << CAP_DAC_OVERRIDE;
		return report(a, syscall(SYS_capset, &hdr, data));
	}
	if (strcmp(a, "fd") == 0) {
		fd = atoi(arg);
		return report(a, fcntl(fd, F_GETFD));
	}
	if (strcmp(a, "escape-timeout") == 0)
		return cmd_escape_timeout();
	if (strcmp(a, "fork-bomb") == 0)
		return cmd_fork_bomb();
	if (strcmp(a, "memory-bomb") == 0)
		return cmd_memory_bomb();
	if (strcmp(a, "fill") == 0)
		return cmd_fill(arg);
	if (strcmp(a, "inodes") == 0)
		return cmd_inodes(arg);
	fprintf(stderr, "probe: unknown attack '%s'\n", a);
	return 2;
}
