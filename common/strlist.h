/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * strlist: whether a name is in a NULL-terminated list of names, the
 * lookup behind the fixed lists the policy code keeps (the system calls
 * a seccomp profile treats alike, the programs a shell rule knows, the
 * refusals an audit shipper counts).  Pure: no allocation, no OS, so the
 * build-time seccomp generator (tools/seccomp_gen) links it alone.
 */
#ifndef AIRLOCK_STRLIST_H
#define AIRLOCK_STRLIST_H

/*
 * 1 if |s| is one of the NULL-terminated |list| (byte for byte, as
 * strcmp(3)), else 0.  A NULL |s| (a field a record does not have) is
 * in no list.
 */
int str_in_list(const char *s, const char *const *list);

#endif
