/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* cli: usage and help texts of every command (cli.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "supervisor/cli.h"

struct help {
	const char *name;
	const char *synopsis; /* lines after "usage: " */
	const char *options; /* the option and operand descriptions */
};

#define WS_OPTS \
	"  -m, --manifest FILE     the manifest (default: the built-in one)\n" \
	"  -w, --workspace DIR     the workspace (default: .)\n"
#define OVERRIDE_OPTS \
	"      --allow-host HOST[:PORT]\n" \
	"                          one more egress allowlist entry (port 443 " \
	"when left\n" \
	"                          out; an IP literal is an address rule)\n" \
	"      --env NAME[=VALUE]  pass NAME from the caller's environment, " \
	"or set it\n" \
	"                          to VALUE\n" \
	"      --setenv NAME VALUE set NAME to VALUE (two words: VALUE may hold =)\n" \
	"      --ro PATH           bind an existing host path read-only at " \
	"its own path\n" \
	"      --rw PATH           bind an existing host path read-write at " \
	"its own path\n"
#define HELP_OPT "  -h, --help              print this help and exit\n"

static const struct help helps[] = {
	{ "run",
	    "airlock run [-v] [--manifest FILE] [--workspace DIR]\n"
	    "           [--allow-host HOST[:PORT]]... [--env NAME[=VALUE]]...\n"
	    "           [--setenv NAME VALUE]... [--ro PATH]... [--rw PATH]...\n"
	    "           [--cow | --resume SESSION] [--setup] -- AGENT [ARGS...]\n",
	    "Run AGENT sandboxed, brokering its tool calls (airlock-run(1)).\n"
	    "\n" WS_OPTS OVERRIDE_OPTS
	    "      --cow               a copy-on-write session: nothing lands in "
	    "the\n"
	    "                          checkout until airlock commit\n"
	    "      --resume SESSION    continue a copy-on-write session\n"
	    "      --setup             the agent's configuration in its home\n"
	    "                          (agent.homeReadOnly) writable and its\n"
	    "                          scratch directories (agent.homeScratch)\n"
	    "                          as they are, to set it up\n"
	    "  -v, --verbose           more diagnostics on stderr\n" HELP_OPT },
	{ "serve", "airlock serve [-v] [--manifest FILE] [--workspace DIR]\n",
	    "Serve the broker (MCP) on stdin and stdout (airlock-serve(1)).\n"
	    "\n" WS_OPTS
	    "  -v, --verbose           more diagnostics on stderr\n" HELP_OPT },
	{ "connect", "airlock connect [--socket PATH]\n",
	    "Relay stdin and stdout to the broker of the sandbox this runs in\n"
	    "(airlock-connect(1)).\n"
	    "\n"
	    "  -s, --socket PATH       dial PATH instead of /run/airlock/mcp.sock\n"
	    "                          (else $AIRLOCK_FD)\n" HELP_OPT },
	{ "check", "airlock check [-v] [FILE]\n",
	    "Validate a manifest (default: the built-in one) and print its "
	    "tools\n(airlock-check(1)).\n"
	    "\n"
	    "  FILE                    the manifest to check\n"
	    "  -v                      then print its canonical form\n" HELP_OPT },
	{ "exec",
	    "airlock exec [-v] [--manifest FILE] [--workspace DIR] "
	    "[--timeout MS]\n"
	    "           [--read-only PATH]... [--deny-read PATH]... "
	    "[--protect REL]...\n"
	    "           [--limit NAME=N]... [--strict] [--no-landlock]\n"
	    "           [--cow | --dry-run]\n"
	    "           [--allow-host HOST[:PORT]]... [--env NAME[=VALUE]]...\n"
	    "           [--setenv NAME VALUE]... [--chdir DIR] [--ro PATH]...\n"
	    "           [--rw PATH]... [--] CMD [ARGS...]\n",
	    "Run one command in a runner sandbox (airlock-exec(1)).\n"
	    "\n" WS_OPTS
	    "  -t, --timeout MS        kill the command's tree after MS "
	    "milliseconds\n"
	    "      --read-only PATH    also bind PATH read-only\n"
	    "      --deny-read PATH    make PATH unreadable\n"
	    "      --protect REL       refuse writes to workspace-relative REL\n"
	    "      --limit NAME=N      one resource limit: cpu, as, fsize, "
	    "nofile, nproc,\n"
	    "                          memory, cpu_percent, tmp\n"
	    "      --strict            the allowlist seccomp profile\n"
	    "      --no-landlock       do not apply landlock\n"
	    "      --cow               copy-on-write workspace (writes are "
	    "discarded)\n"
	    "      --dry-run           list what the change set would apply; "
	    "apply\n"
	    "                          nothing\n"
	    "      --chdir DIR         start in DIR (inside the workspace; "
	    "relative to it)\n" OVERRIDE_OPTS
	    "  -v, --verbose           print the layers in force and the "
	    "duration\n" HELP_OPT },
	{ "profile",
	    "airlock profile --seatbelt [--manifest FILE] [--workspace DIR]\n"
	    "       [--home DIR] [--tmpdir DIR] [--tty DEV] [--proxy-port N]\n",
	    "Print the sandbox policy as a macOS Seatbelt profile "
	    "(airlock-profile(1)).\n"
	    "\n"
	    "  -s, --seatbelt          the Seatbelt (SBPL) form (required)\n" WS_OPTS
	    "      --home DIR          expands ~ in denied paths (default: "
	    "$HOME)\n"
	    "      --tmpdir DIR        the run's TMPDIR, writable (default: "
	    "the\n"
	    "                          parameter TMPDIR of sandbox-exec -D)\n"
	    "      --tty DEV           the run's terminal, readable and "
	    "writable\n"
	    "      --proxy-port N      the egress proxy's loopback port "
	    "(default:\n"
	    "                          the parameter PROXY_PORT, with "
	    "network)\n" HELP_OPT },
	{ "pending", "airlock pending [-v | --json] [--session ID]\n",
	    "List the approvals waiting for a human (airlock-approve(1)).\n"
	    "\n"
	    "  -s, --session ID        only that session's\n"
	    "  -v, --verbose           what will run, the full arguments and "
	    "evidence\n"
	    "      --json              one versioned JSON object (sessions "
	    "reached,\n"
	    "                          pending approvals, refusals)\n" HELP_OPT },
	{ "approve",
	    "airlock approve [-y] [--session ID] [--note TEXT] APPROVAL-ID\n"
	    "       airlock approve --sign --key FILE (--host-key KEY... | "
	    "--unverified)\n"
	    "           [--id ID] [--note TEXT] [--expires-in SECONDS] "
	    "[--out FILE] [-y]\n"
	    "           REQUEST\n"
	    "       airlock approve --token FILE|-\n",
	    "Approve one pending action after showing it, or sign a decision "
	    "token\nfor one, or hand a signed token to its session "
	    "(airlock-approve(1)).\n"
	    "\n"
	    "  APPROVAL-ID             the id that airlock pending printed\n"
	    "  -s, --session ID        look only in that session\n"
	    "  -n, --note TEXT         a note recorded with the decision\n"
	    "  -y, --yes               do not ask for confirmation\n"
	    "      --sign              write a signed decision token for "
	    "REQUEST\n"
	    "                          (a notify payload or pending --json)\n"
	    "      --key FILE          the approver's secret key (approver "
	    "keygen)\n"
	    "      --host-key KEY      the session host's audit key (64 hex "
	    "digits or\n"
	    "                          a file: its audit.pub or trusted.pub); "
	    "REQUEST\n"
	    "                          must be signed by a session it "
	    "certified\n"
	    "      --unverified        sign without checking who sent "
	    "REQUEST (its\n"
	    "                          evidence is then unchecked)\n"
	    "      --id ID             which approval of REQUEST\n"
	    "      --expires-in SECONDS  the token's lifetime (default 3600)\n"
	    "      --out FILE          write the token to FILE (default: "
	    "stdout)\n"
	    "      --token FILE|-      hand a signed token to its session\n" HELP_OPT },
	{ "deny",
	    "airlock deny --reason TEXT [--session ID] APPROVAL-ID\n"
	    "       airlock deny --sign --key FILE --reason TEXT [--host-key KEY]\n"
	    "           [--id ID] [--expires-in SECONDS] [--out FILE] REQUEST\n",
	    "Deny one pending action, or sign a denial token "
	    "(airlock-approve(1)).\n"
	    "\n"
	    "  APPROVAL-ID             the id that airlock pending printed\n"
	    "  -r, --reason TEXT       why (required; the agent sees it)\n"
	    "  -s, --session ID        look only in that session\n"
	    "  -n, --note TEXT         a note recorded with the decision\n"
	    "      --sign              write a signed decision token for "
	    "REQUEST\n"
	    "      --key FILE          the approver's secret key\n"
	    "      --host-key KEY      say whether REQUEST is signed by a "
	    "session that\n"
	    "                          host key certified (a denial is signed "
	    "either way)\n"
	    "      --id ID             which approval of REQUEST\n"
	    "      --expires-in SECONDS  the token's lifetime (default 3600)\n"
	    "      --out FILE          write the token to FILE (default: "
	    "stdout)\n" HELP_OPT },
	{ "approver",
	    "airlock approver keygen FILE\n"
	    "       airlock approver sign-manifest --key FILE MANIFEST\n",
	    "Make an approver's Ed25519 key pair (FILE and FILE.pub), or sign "
	    "a\nmanifest with a team key (MANIFEST.sig) "
	    "(airlock-approver(1)).\n"
	    "\n"
	    "      --key FILE          the secret key that signs the manifest\n" HELP_OPT },
	{ "diff", "airlock diff SESSION\n",
	    "Show what a copy-on-write session changed, as a unified diff "
	    "with\nbinary files, deletions, renames and mode changes listed "
	    "(airlock-diff(1)).\n"
	    "\n"
	    "  SESSION                 the session id airlock run printed\n" HELP_OPT },
	{ "commit", "airlock commit [--digest SHA256] SESSION\n",
	    "Apply a copy-on-write session to the checkout, all or nothing, "
	    "after\nthe write policy and a conflict check (airlock-commit(1)).\n"
	    "\n"
	    "  SESSION                 the session id airlock run printed\n"
	    "      --digest SHA256     commit only if the diff is still the one "
	    "with\n"
	    "                          this digest (airlock diff prints it)\n" HELP_OPT },
	{ "discard", "airlock discard SESSION\n",
	    "Throw away a copy-on-write session's changes "
	    "(airlock-discard(1)).\n"
	    "\n"
	    "  SESSION                 the session id airlock run printed\n" HELP_OPT },
	{ "trace", "airlock trace SESSION-ID|DIR\n",
	    "Print a session's readable trace (airlock-trace(1)).\n"
	    "\n"
	    "  SESSION-ID              a session under the state directory\n"
	    "  DIR                     a session directory (contains a /)\n" HELP_OPT },
	{ "audit",
	    "airlock audit verify [-q] [--key HEX|FILE]... [--key-file FILE]... "
	    "[--head HASH]\n"
	    "           LOG|DIR...\n"
	    "       airlock audit show [--session ID] [--tool NAME] "
	    "[--decision D]\n"
	    "           [--event E] [--since TIME] [--until TIME] [--json] "
	    "LOG...\n"
	    "       airlock audit tail [--follow] [--lines N] [--json] LOG\n"
	    "       airlock audit key [--rotate | KEYFILE]\n",
	    "Verify, show and follow audit logs (airlock-audit(1)).\n"
	    "\n"
	    "  verify                  prove the hash chain and every signature;\n"
	    "                          a directory: every session in it\n"
	    "    -k, --key HEX|FILE    trust this host (or session) public key\n"
	    "    -K, --key-file FILE   trust every key listed in FILE\n"
	    "    -H, --head HASH       require a record with this hash\n"
	    "    -q, --quiet           print only the verdict\n"
	    "  show                    print the records that match\n"
	    "    -s, --session ID      of this session\n"
	    "    -t, --tool NAME       about this tool\n"
	    "    -d, --decision D      with this decision\n"
	    "    -e, --event E         of this event\n"
	    "    -S, --since TIME      at or after TIME (RFC 3339)\n"
	    "    -U, --until TIME      before TIME\n"
	    "    -j, --json            the records as JSON lines\n"
	    "  tail                    print the last records\n"
	    "    -f, --follow          then wait for more\n"
	    "    -n, --lines N         the last N (default 10)\n"
	    "    -j, --json            the records as JSON lines\n"
	    "  key                     print the host's audit public key "
	    "(made if\n"
	    "                          missing); KEYFILE: that key's instead\n"
	    "      --rotate            a new host key; the old public key stays\n"
	    "                          trusted (keys/trusted.pub)\n" HELP_OPT },
	{ "suggest",
	    "airlock suggest [--manifest M] [--json]\n"
	    "           [--apply --plan ID [--allow-weakening]] SESSION\n",
	    "Print the smallest manifest change that would have allowed a "
	    "session's\nsandbox denials, as a unified diff of the manifest "
	    "(airlock-suggest(1)).\n"
	    "\n"
	    "  SESSION                 a session id, a session directory or "
	    "an audit log\n"
	    "  -m, --manifest M        edit M, not the manifest the session "
	    "recorded\n"
	    "      --json              the changes, notes and diff as JSON\n"
	    "      --apply             write the change, once airlock check "
	    "accepts it\n"
	    "      --plan ID           with --apply: the plan id the review "
	    "printed; a\n"
	    "                          change that is not that one is not "
	    "written\n"
	    "      --allow-weakening   with --apply: also a change marked "
	    "WEAKENS\n" HELP_OPT },
	{ "sessions",
	    "airlock sessions [list] [--json]\n"
	    "       airlock sessions pin ID [NOTE...]\n"
	    "       airlock sessions unpin ID\n"
	    "       airlock sessions prune --older-than AGE [--dry-run]\n",
	    "List the recorded sessions, pin them, prune old ones "
	    "(airlock-sessions(1)).\n"
	    "\n"
	    "      --json              one JSON object per session\n"
	    "      --older-than AGE    prune sessions that ended before AGE ago "
	    "(30d,\n"
	    "                          12h, 90m, 2w); pinned and open ones "
	    "stay\n"
	    "      --dry-run           list what prune would remove\n" HELP_OPT },
	{ "paths", "airlock paths [--json]\n",
	    "Print the state, runtime and config directories in use, the rule "
	    "that\nchose each, and the compiled-in defaults (airlock(1)).\n"
	    "\n"
	    "      --json              as one JSON object\n" HELP_OPT },
	{ "secret",
	    "airlock secret [--dir DIR] [--passphrase-fd FD] set NAME\n"
	    "       airlock secret [--dir DIR] [--passphrase-fd FD] list\n"
	    "       airlock secret [--dir DIR] [--passphrase-fd FD] rm NAME\n",
	    "Set, list and remove sealed credentials (airlock-secret(1)).\n"
	    "\n"
	    "  set NAME                store the value read from stdin as NAME\n"
	    "  list                    print the names\n"
	    "  rm NAME                 remove NAME\n"
	    "  -d, --dir DIR           the store in DIR instead of the state "
	    "directory's\n"
	    "  -p, --passphrase-fd FD  read the passphrase from descriptor FD\n" HELP_OPT },
	{ "proxy",
	    "airlock proxy --listen ADDR:PORT --allow HOST:PORT [--allow ...]\n"
	    "           [--allow-ip CIDR[:PORT]]... [--max-bytes N] "
	    "[--idle-ms MS]\n"
	    "           [--connect-ms MS] [--max-conns N] [--max-line N]\n"
	    "           [--max-header N] [--events FILE] [--sandbox ID]\n"
	    "           [--port-file FILE] [-v]\n",
	    "Run the egress proxy standalone (airlock-proxy(1)).\n"
	    "\n"
	    "      --listen ADDR:PORT  where to listen (port 0: any free port)\n"
	    "      --allow HOST:PORT   allow a host name and port (repeatable)\n"
	    "      --allow-ip CIDR[:PORT]\n"
	    "                          allow addresses in CIDR\n"
	    "      --max-bytes N       relay at most N bytes per connection\n"
	    "      --idle-ms MS        close a connection idle for MS\n"
	    "      --connect-ms MS     outbound connect deadline\n"
	    "      --max-conns N       concurrent connections\n"
	    "      --max-line N        request line limit\n"
	    "      --max-header N      request head limit\n"
	    "      --events FILE       append one JSON line per connection\n"
	    "      --sandbox ID        sandbox id recorded in events\n"
	    "      --port-file FILE    write the listening port to FILE\n"
	    "  -v, --verbose           more diagnostics; repeat for more\n" HELP_OPT },
	{ "help", "airlock help [COMMAND]\n",
	    "Print the commands, or COMMAND's usage and options.\n" },
	{ NULL, NULL, NULL },
};

static const struct help *
find(const char *cmd)
{
	size_t i;

	for (i = 0; cmd != NULL && helps[i].name != NULL; i++)
		if (strcmp(helps[i].name, cmd) == 0)
			return &helps[i];
	return NULL;
}

int
cli_help(const char *cmd, FILE *fp)
{
	const struct help *h = find(cmd);

	if (h == NULL)
		return -1;
	fprintf(fp,
	    "usage: %s\n%s\nExit status: see airlock(1), EXIT STATUS.\n",
	    h->synopsis, h->options);
	return 0;
}

void
cli_usage(const char *cmd)
{
	const struct help *h = find(cmd);

	if (h != NULL)
		fprintf(stderr, "usage: %s", h->synopsis);
	fprintf(stderr, "Try 'airlock help %s' for the options.\n", cmd);
}

int
cli_wants_help(int argc, char **argv, int anywhere)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return 1;
		if (!anywhere)
			return 0;
	}
	return 0;
}
