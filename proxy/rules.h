/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * rules: the egress proxy's allowlist and address classifier (pure code:
 * no I/O, no name resolution).
 *
 * A destination is allowed when
 *   1. its host:port matches a host rule ("api.example.com:443",
 *      "*.example.com:443", "pypi.org:*"), or the host is an IP literal
 *      covered by an IP rule; and
 *   2. EVERY address the host resolves to (the literal itself for an IP
 *      literal) is a public unicast address, or is covered by an IP rule
 *      for that port.
 * The proxy resolves a name once, checks every address with
 * rules_check_addr() and connects only to addresses that passed.
 *
 * Host rule syntax: HOST ":" PORT.  HOST is a DNS name (letters, digits,
 * '-', '_'; labels of 1..63 bytes; at most 253 bytes), compared without
 * regard to case and with one trailing dot removed; or "*." followed by
 * such a name, which matches strict subdomains only ("*.example.com"
 * matches "a.example.com" and "a.b.example.com", never "example.com"
 * nor "badexample.com"; the suffix needs two labels, so "*.com" is
 * refused); or an IPv4 literal in canonical dotted-quad
 * form (no trailing dot), or an IPv6 literal in brackets.  PORT is required: a number in
 * 1..65535, or "*" for any port (an explicit, visible choice).
 *
 * IP rule syntax: CIDR [":" PORT], where CIDR is "a.b.c.d[/len]" or
 * "[v6addr][/len]" (the prefix length may also sit inside the brackets);
 * no PORT or "*" means any port.  An IP rule is the only way to reach a
 * forbidden address class (loopback, private, metadata, ...).
 */
#ifndef AIRLOCK_PROXY_RULES_H
#define AIRLOCK_PROXY_RULES_H

#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#define RULES_HOST_MAX		254	/* longest normalized host + NUL */
#define RULES_REASON_MAX	256	/* reasons and rule texts */

/* The classes an address can fall in; everything but ADDR_PUBLIC is refused. */
enum addr_class {
	ADDR_PUBLIC = 0,
	ADDR_UNSPECIFIED,
	ADDR_THIS_NETWORK,
	ADDR_LOOPBACK,
	ADDR_PRIVATE,
	ADDR_CGNAT,
	ADDR_LINK_LOCAL,
	ADDR_METADATA,
	ADDR_MULTICAST,
	ADDR_BROADCAST,
	ADDR_RESERVED,
	ADDR_DOCUMENTATION,
	ADDR_BENCHMARK,
	ADDR_ULA,
	ADDR_SITE_LOCAL,
	ADDR_TEREDO,
	ADDR_NAT64_LOCAL,
	ADDR_DISCARD,
	ADDR_CLASS_COUNT
};

struct rules;

/* The request's destination after parsing and normalization. */
struct rules_target {
	char		host[RULES_HOST_MAX];	/* lowercase, no trailing dot,
						   IPv6 without brackets */
	uint16_t	port;
	int		family;		/* 0 for a name; AF_INET/AF_INET6 for
					   a literal */
	unsigned char	addr[16];	/* the literal's bytes (network order) */
};

/* Returns an empty rule set (denies everything), or NULL on exhaustion. */
struct rules	*rules_new(void);

/* Frees |r| and its rules; rules_free(NULL) is a no-op. */
void		 rules_free(struct rules *r);

/*
 * Adds a host rule (syntax above).  Returns 0, AL_ERR_FORMAT with a
 * message in err (always NUL-terminated when errlen > 0), or
 * AL_ERR_ALLOC.  |pattern| is copied.  An IPv4 literal with a trailing
 * dot ("1.1.1.1.:443") is refused: a name may end in one, but the
 * literal's IP rule (rules_add_ip()) could not be written that way.
 */
int		 rules_add_host(struct rules *r, const char *pattern, char *err,
		    size_t errlen);

/* Adds an IP rule (syntax above).  Same returns as rules_add_host(). */
int		 rules_add_ip(struct rules *r, const char *cidr, char *err,
		    size_t errlen);

/* Number of host rules and IP rules held. */
size_t		 rules_count(const struct rules *r);

/*
 * Parses an authority "host[:port]" of |len| bytes (not necessarily
 * NUL-terminated) into *t: lowercases, strips one trailing dot, parses
 * bracketed IPv6 and canonical dotted-quad IPv4 literals.  A missing port
 * gives |default_port|; default_port 0 makes the port required.  Refuses
 * (AL_ERR_FORMAT, reason in |why|) userinfo, zone ids, empty labels,
 * characters outside [A-Za-z0-9._-], port 0 or > 65535, and any host
 * whose last label is numeric but that is not a canonical dotted quad
 * ("2130706433", "0177.0.0.1", "0x7f.1", "127.1", "1.2.3.04").
 * *t is cleared before any check.
 */
int		 rules_parse_authority(const char *s, size_t len,
		    uint16_t default_port, struct rules_target *t, char *why,
		    size_t whylen);

/*
 * Step 1: may |t| be requested at all?  Returns 1 (allowed; |rule| names
 * the matching host or IP rule) or 0 (refused; |reason| says why, e.g.
 * "host not in allowlist: evil.com:443").  Both buffers are always
 * NUL-terminated.  For an IP literal this also performs step 2.
 */
int		 rules_check_target(const struct rules *r,
		    const struct rules_target *t, char *rule, size_t rulelen,
		    char *reason, size_t reasonlen);

/*
 * Step 2: may the proxy connect to |sa| (AF_INET or AF_INET6; the port
 * in |sa| is ignored, |port| is used)?  Returns 1 (public, or covered by
 * an IP rule, which is then named in |rule|) or 0 (|reason| e.g.
 * "address 10.0.0.5 is private (RFC 1918)").  Never allows an address
 * family other than AF_INET/AF_INET6.
 */
int		 rules_check_addr(const struct rules *r, const struct sockaddr *sa,
		    uint16_t port, char *rule, size_t rulelen, char *reason,
		    size_t reasonlen);

/*
 * Classifies |addr| (4 bytes for AF_INET, 16 for AF_INET6, network
 * order).  IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16) addresses are classified by the
 * IPv4 address they embed (the whole local-use NAT64 prefix
 * 64:ff9b:1::/48 and Teredo are refused outright).  If |desc| is not
 * NULL it receives a description such as "private (RFC 1918)" or
 * "IPv4-mapped loopback (127.0.0.0/8)".
 */
enum addr_class	 rules_classify(int family, const unsigned char *addr, char *desc,
		    size_t desclen);

/*
 * Parses |host| as an IPv4 or IPv6 address literal into |addr| (16
 * bytes; 4 used for IPv4) and *family (AF_INET, AF_INET6): 0, or -1
 * when it is not one (a name).
 */
int		 rules_parse_literal(const char *host, int *family,
		    unsigned char addr[16]);

/* Returns the short static name of |c| ("loopback", "private", ...). */
const char	*rules_class_name(enum addr_class c);

#endif
