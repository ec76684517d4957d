/* airlock trace SESSION: print the readable trace of a session. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "supervisor/commands.h"
#include "supervisor/session.h"

int
cmd_trace(int argc, char **argv)
{
	char	 state[PATH_MAX], path[2 * PATH_MAX], buf[8192];
	FILE	*fp;
	size_t	 n;

	log_init("airlock trace", 0);
	if (argc != 2) {
		fprintf(stderr, "usage: airlock trace SESSION-ID|DIR\n");
		return EXIT_USAGE;
	}
	if (strchr(argv[1], '/') != NULL)
		snprintf(path, sizeof(path), "%s/trace.txt", argv[1]);
	else {
		if (session_state_dir(state, sizeof(state)) != 0)
			fatalx("state directory path too long");
		snprintf(path, sizeof(path), "%s/sessions/%s/trace.txt", state,
		    argv[1]);
	}
	if ((fp = fopen(path, "re")) == NULL) {
		log_warn("%s", path);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(fp);
	return 0;
}
