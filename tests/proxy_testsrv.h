/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * proxy_testsrv: a tiny HTTP/1.1 origin server on loopback that stands in
 * for the internet in the proxy's tests and benchmark (no python needed).
 *
 *   GET /hello        "hello from airlock test server\n"
 *   GET /size/N       N bytes of 'x'
 *   GET /echo         the request head it received, as the body
 *   GET /redirect     302 to http://169.254.169.254/ (never followed)
 *   GET /ping         "pong" (small, for round-trip timing)
 *
 * Keep-alive is honoured unless the request says "Connection: close".
 * One forked process per connection; every process exits by itself
 * after |lifetime_s| seconds.
 */
#ifndef AIRLOCK_TESTS_PROXY_TESTSRV_H
#define AIRLOCK_TESTS_PROXY_TESTSRV_H

#include <stdint.h>
#include <sys/types.h>

/*
 * Binds 127.0.0.1:0 (or testsrv_set_addr()'s address) in the current
 * netns and forks the server.  Returns
 * its pid (kill it with SIGTERM; it is a process group leader, so
 * kill(-pid) ends its connection handlers too) and the port in *port, or
 * -1.
 */
pid_t	testsrv_start(uint16_t *port, unsigned lifetime_s);

/*
 * Before testsrv_start(): each connection handler, when it ends, appends
 * to |path| "=== connection N bytes\n", every byte it received (the
 * requests it answered and anything after them), and "\n=== end\n".
 * |path| is borrowed and must outlive the server.
 */
void	testsrv_set_log(const char *path);

/*
 * Before testsrv_start(): bind |ip| (an IPv4 or IPv6 literal) instead of
 * 127.0.0.1; "::" serves IPv4 too.  |ip| is borrowed and must outlive
 * the call to testsrv_start().
 */
void	testsrv_set_addr(const char *ip);

/*
 * Client helpers.  testsrv_connect() connects to |ip|:|port| (blocking,
 * close-on-exec) or returns -1.  testsrv_read_all() reads until EOF,
 * |cap| bytes or |timeout_ms| and returns the count (NUL-terminates when
 * there is room) or -1.
 */
int	testsrv_connect(const char *ip, uint16_t port);
ssize_t	testsrv_read_all(int fd, char *buf, size_t cap, int timeout_ms);

#endif
