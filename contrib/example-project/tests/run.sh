#!/bin/sh
# The Workboard gates.  Usage: sh tests/run.sh [todo-create|todo-transition]
set -u
here=$(dirname "$0")
. "$here/../src/todo.sh"
TODO_DB=$(mktemp "${TMPDIR:-/tmp}/todo.XXXXXX")
failed=0

expect() {	# NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: expected '$2', got '$3'"
		failed=1
	fi
}

test_todo_create() {
	: >"$TODO_DB"
	todo_create alpha 1 "write the brief"
	expect "WB-TODO-001 create is open" open "$(todo_state alpha 1)"
}

test_todo_transition() {
	: >"$TODO_DB"
	todo_create alpha 1 "write the brief"
	todo_create beta 1 "beta's own todo"
	todo_complete alpha 1
	expect "WB-TODO-002 complete marks done" done "$(todo_state alpha 1)"
	expect "WB-TODO-002 other tenant untouched" open "$(todo_state beta 1)"
	todo_complete alpha 1
	expect "WB-TODO-002 complete is idempotent" done "$(todo_state alpha 1)"
}

case "${1:-all}" in
todo-create) test_todo_create ;;
todo-transition) test_todo_transition ;;
all) test_todo_create; test_todo_transition ;;
*) echo "unknown test $1" >&2; exit 2 ;;
esac
rm -f "$TODO_DB"
exit $failed
