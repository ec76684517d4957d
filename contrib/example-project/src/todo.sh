# Workboard todo store.  One todo per line of $TODO_DB:
#   TENANT|ID|STATE|TITLE
# STATE is "open" or "done".  Every operation is scoped to one tenant.

todo_create() {
	tenant=$1 id=$2 title=$3
	if grep -q "^$tenant|$id|" "$TODO_DB" 2>/dev/null; then
		echo "todo $id exists for $tenant" >&2
		return 1
	fi
	printf '%s|%s|open|%s\n' "$tenant" "$id" "$title" >>"$TODO_DB"
}

# Marks a todo done.  Completing a done todo again changes nothing.
todo_complete() {
	tenant=$1 id=$2
	sed -i "s/^\([^|]*\)|$id|open|/\1|$id|done|/" "$TODO_DB"
}

todo_state() {
	tenant=$1 id=$2
	grep "^$tenant|$id|" "$TODO_DB" | cut -d'|' -f3
}
