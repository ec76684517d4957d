#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The airlock authors
# Shell rules on a host whose /bin/sh is bash (Fedora, macOS).  Bash
# evaluates a variable's value wherever it does arithmetic, and a
# subscript's substitutions wherever a builtin takes a variable's name:
# with a value the agent wrote to a file, "read x <f; echo $((x))" and
# "read x <f; read "$x" <<<1" run whatever the file says, and so does
# "read x <f; echo "${x@P}"" (a prompt expansion), though the
# rules see only read and echo, which the shipped set allows.  Debian's
# dash refuses such values, so the attack is played for real here in a
# mount namespace of its own where /bin/sh is bash: the broker and the
# sandboxed shell see bash, the rest of the machine does not.  Each
# command now waits for a human and nothing of the file's runs; the
# controls show the sandbox's sh is bash and that plain commands still
# run.  So do the strings below that bash alone reads as running dd.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/integration/mcp_lib.sh"
mcp_env
if ! command -v unshare >/dev/null || [ "$(id -u)" -ne 0 ]; then
	echo "# SKIP needs root and unshare(1) to give /bin/sh another shell"
	exit 77
fi
ws=$(make_workspace)
# The payload: each of the agent's files names a file to create.
printf 'a[$(>%s/pwned-arith)]\n' "$ws" >"$ws/arith.txt"
printf 'a[$(>%s/pwned-name)]\n' "$ws" >"$ws/name.txt"
printf '$(>%s/pwned-prompt)\n' "$ws" >"$ws/prompt.txt"
for f in random optind printfv; do
	printf 'a[$(>%s/pwned-%s)]\n' "$ws" "$f" >"$ws/$f.txt"
done
# A message catalog whose translation of "hi" is a command substitution.
mkdir -p "$ws/C.UTF-8/LC_MESSAGES"
python3 - "$ws/C.UTF-8/LC_MESSAGES/x.mo" "\$(>$ws/pwned-locale)" <<'PY'
import struct, sys
ids, strs = [b"", b"hi"], [b"Content-Type: text/plain; charset=UTF-8\n", sys.argv[2].encode()]
n, off = len(ids), 28 + 16 * 2
tab, data = [], b""
for s in ids + strs:
    tab += [len(s), off + len(data)]
    data += s + b"\0"
open(sys.argv[1], "wb").write(struct.pack("<7I", 0x950412de, 0, n, 28, 28 + 8 * n, 0, 0) + struct.pack("<%dI" % len(tab), *tab) + data)
PY

# A locale of double-byte characters (GBK) the sandbox can see, in this
# namespace only: compiled into $T, mounted over /usr/lib/locale.
LOCALE_DIR=
if command -v localedef >/dev/null && [ -e /usr/share/i18n/charmaps/GBK.gz ]; then
	mkdir -p "$T/loc/usr/lib/locale"
	[ ! -d /usr/lib/locale/C.utf8 ] || cp -R /usr/lib/locale/C.utf8 "$T/loc/usr/lib/locale/"
	localedef --prefix="$T/loc" -i zh_CN -f GBK zh_CN.GBK >/dev/null 2>&1 &&
	    LOCALE_DIR=$T/loc/usr/lib/locale
fi

shell_rules_manifest "$T/m.yaml"

# airlock serve where /bin/sh is bash.
mcp_start_bash_sh "$T/m.yaml" "$ws"

AIRLOCK=$REAL_AIRLOCK
shell_asks_denied "bash evaluates" 'read x <arith.txt; echo $((x))' \
    'read x <name.txt; read "$x" <<<1' 'read -r x <prompt.txt; echo "${x@P}"'
# Bash reads more than dash: process substitution inside ${...}, NAME+=
# assignments, and variables that pick the program a name runs
# (BASH_CMDS, BASH_ALIASES) or move assignments into a command's
# environment (set -k).  Each ran dd with the rules seeing only echo,
# "0", git ls-remote or an unknown program named GIT_SSH_COMMAND+=...
dd_='dd if=/dev/zero count=1 of'
shell_asks_denied unresolvable "echo \${x:-<($dd_=pwned-procsub)}; sleep 1" \
    "read BASH_CMDS <<< /bin/dd; 0 if=/dev/zero count=1 of=pwned-cmds" \
    "GIT_SSH_COMMAND+='$dd_=pwned-append #' git ls-remote ssh://h/x" \
    "set -k; git ls-remote ssh://h/x GIT_SSH_COMMAND='$dd_=pwned-setk #'"
# bash's time is a keyword that times a pipeline: "time X=1 dd ...",
# "time ! dd ..." and "time { dd ...; }" run dd; the rules decided a
# program named "X=1", "!" or "{".
# (The alias's text, read as code, meets the dd rule.)
shell_asks_denied "rule 9 (dd): ask" "time X=1 $dd_=pwned-time" \
    "shopt -s expand_aliases; for BASH_ALIASES in '$dd_=pwned-alias'; do :; done
0" \
    "time ! $dd_=pwned-time-not" "time { $dd_=pwned-time-group; }"
# bash builtins that run what the rules took for words: "jobs -x dd ..."
# runs dd (its jobspecs replaced by process groups), and with history on
# ("set -o history -H"), a history expansion in an allowed echo pastes
# a piece of a line already run ("!!:1:t": the first word after its
# last "/", quote and all) that runs dd: the rules saw jobs, set and
# two echos.
shell_asks_denied "rule 9 (dd): ask" "jobs -x $dd_=pwned-jobs"
shell_asks_denied "history expansion" "set -o history -H
echo 'x/;dd count=0 of=pwned-hist;'
echo !!:1:t\\'"
# compgen -W expands its word list as bash does a word: "compgen -W
# '$(dd ...)' x" ran dd, the rules seeing a quoted argument.
# (The word list, read as code, meets the dd rule.)
shell_asks_denied "rule 9 (dd): ask" \
    "compgen -W '\$($dd_=pwned-compgen)' x"
# Bash's integer variables (RANDOM, SRANDOM, OPTIND, HISTCMD) evaluate
# what is assigned to them as arithmetic, a variable's value too, and
# printf -vNAME (attached, which the rules did not look at) evaluates
# NAME's subscript: each ran the file's command, the rules seeing read,
# an assignment, a for loop and printf.
shell_asks_denied "bash evaluates it as arithmetic" \
    'read x <random.txt; RANDOM=x' \
    'read x <optind.txt; for OPTIND in x; do :; done'
shell_asks_denied "printf with an option that is not a fixed word" \
    'read x <printfv.txt; printf -vb[x] %s 1'
# bash translates $"..." at parse time through the catalog TEXTDOMAIN and
# TEXTDOMAINDIR name (set on an earlier line), and expands the
# translation as it does "...": the agent's catalog ran its command,
# the rules seeing three assignments and an echo.
shell_asks_denied "bash translates it with a message catalog" \
    'TEXTDOMAINDIR=. TEXTDOMAIN=x LC_ALL=C.UTF-8
echo $"hi"'
# In a GBK locale (LC_ALL set on an earlier line, here by a for loop)
# bash reads a byte >= 0x80 and the backslash after it as one character:
# the quote the rules took as escaped ended the string, and dd ran with
# the rules seeing an echo of one long argument.  ("\xe4\xb8\x81" is
# valid UTF-8 for the JSON; GBK pairs e4 b8, then 81 and the backslash.)
if [ -n "$LOCALE_DIR" ]; then
	shell_asks_denied "a non-ASCII byte before a backslash" \
	    "for LC_ALL in zh_CN.GBK; do echo; done
echo \"$(printf '\344\270\201')\\\"; $dd_=pwned-gbk
echo \""
	check "nothing hidden ran (gbk)" test ! -e "$ws/pwned-gbk"
else
	echo "# no GBK locale to compile (localedef, its charmap): skipped"
fi
for f in procsub cmds alias append setk time time-not time-group jobs hist compgen random optind printfv locale; do
	check "nothing hidden ran ($f)" test ! -e "$ws/pwned-$f"
done
check "nothing of the files ran (arithmetic)" test ! -e "$ws/pwned-arith"
check "nothing of the files ran (a name)" test ! -e "$ws/pwned-name"
check "nothing of the files ran (a prompt expansion)" test ! -e "$ws/pwned-prompt"
shell 'read x <arith.txt; echo "$x" | wc -c'
expect_ok_result "control: the same value read and printed runs"
mcp_stop
check "still nothing ran" test ! -e "$ws/pwned-arith" -a ! -e "$ws/pwned-name" -a ! -e "$ws/pwned-prompt"
finish
