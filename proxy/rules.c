/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/*
 * rules: allowlist matching and address classification for the egress
 * proxy.  Pure: no resolution, no sockets.  See rules.h for the syntax.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "proxy/rules.h"

#define RULES_MAX	4096	/* rules of each kind */

struct host_rule {
	char		*text;		/* as written, for reasons */
	char		 host[RULES_HOST_MAX];	/* suffix without "*." */
	int		 wildcard;
	int		 family;	/* literal rule: AF_INET/AF_INET6 */
	unsigned char	 addr[16];
	uint16_t	 port;		/* 0: any */
};

struct ip_rule {
	char		*text;
	int		 family;
	unsigned char	 addr[16];
	unsigned	 prefix;
	uint16_t	 port;		/* 0: any */
};

struct rules {
	struct host_rule	*hosts;
	size_t			 nhosts;
	struct ip_rule		*ips;
	size_t			 nips;
};

/*
 * The forbidden ranges.  Rows are tried in order, so a more specific
 * row (metadata) comes before the range that holds it (link-local).
 * EMBED rows say where an IPv6 address carries an IPv4 one; the IPv4
 * address is then classified by the IPv4 table.
 */
enum embed {
	EMBED_NONE,
	EMBED_LOW32,		/* bytes 12..15 */
	EMBED_6TO4,		/* bytes 2..5 */
};

struct range {
	const char	*net;
	unsigned	 prefix;
	enum addr_class	 cls;
	enum embed	 embed;
	const char	*desc;
};

static const struct range v4_ranges[] = {
	{ "0.0.0.0", 32, ADDR_UNSPECIFIED, EMBED_NONE, "unspecified (0.0.0.0)" },
	{ "0.0.0.0", 8, ADDR_THIS_NETWORK, EMBED_NONE,
	    "\"this network\" (0.0.0.0/8)" },
	{ "10.0.0.0", 8, ADDR_PRIVATE, EMBED_NONE, "private (RFC 1918)" },
	{ "100.64.0.0", 10, ADDR_CGNAT, EMBED_NONE,
	    "shared address space (CGNAT, 100.64.0.0/10)" },
	{ "127.0.0.0", 8, ADDR_LOOPBACK, EMBED_NONE, "loopback (127.0.0.0/8)" },
	{ "168.63.129.16", 32, ADDR_METADATA, EMBED_NONE,
	    "cloud metadata (Azure 168.63.129.16)" },
	{ "169.254.169.254", 32, ADDR_METADATA, EMBED_NONE,
	    "cloud metadata (169.254.169.254)" },
	{ "169.254.0.0", 16, ADDR_LINK_LOCAL, EMBED_NONE,
	    "link-local (169.254.0.0/16)" },
	{ "172.16.0.0", 12, ADDR_PRIVATE, EMBED_NONE, "private (RFC 1918)" },
	{ "192.0.0.0", 24, ADDR_RESERVED, EMBED_NONE,
	    "IETF protocol assignments (192.0.0.0/24)" },
	{ "192.0.2.0", 24, ADDR_DOCUMENTATION, EMBED_NONE,
	    "documentation (192.0.2.0/24)" },
	{ "192.88.99.0", 24, ADDR_RESERVED, EMBED_NONE,
	    "6to4 relay anycast (192.88.99.0/24)" },
	{ "192.168.0.0", 16, ADDR_PRIVATE, EMBED_NONE, "private (RFC 1918)" },
	{ "198.18.0.0", 15, ADDR_BENCHMARK, EMBED_NONE,
	    "benchmarking (198.18.0.0/15)" },
	{ "198.51.100.0", 24, ADDR_DOCUMENTATION, EMBED_NONE,
	    "documentation (198.51.100.0/24)" },
	{ "203.0.113.0", 24, ADDR_DOCUMENTATION, EMBED_NONE,
	    "documentation (203.0.113.0/24)" },
	{ "224.0.0.0", 4, ADDR_MULTICAST, EMBED_NONE,
	    "multicast (224.0.0.0/4)" },
	{ "255.255.255.255", 32, ADDR_BROADCAST, EMBED_NONE,
	    "broadcast (255.255.255.255)" },
	{ "240.0.0.0", 4, ADDR_RESERVED, EMBED_NONE, "reserved (240.0.0.0/4)" },
};

static const struct range v6_ranges[] = {
	{ "::", 128, ADDR_UNSPECIFIED, EMBED_NONE, "unspecified (::)" },
	{ "::1", 128, ADDR_LOOPBACK, EMBED_NONE, "loopback (::1)" },
	{ "fd00:ec2::254", 128, ADDR_METADATA, EMBED_NONE,
	    "cloud metadata (fd00:ec2::254)" },
	{ "::ffff:0:0", 96, ADDR_PUBLIC, EMBED_LOW32, "IPv4-mapped" },
	{ "::ffff:0:0:0", 96, ADDR_PUBLIC, EMBED_LOW32, "IPv4-translated" },
	{ "::", 96, ADDR_PUBLIC, EMBED_LOW32, "IPv4-compatible" },
	{ "64:ff9b::", 96, ADDR_PUBLIC, EMBED_LOW32, "NAT64" },
	{ "64:ff9b:1::", 48, ADDR_NAT64_LOCAL, EMBED_NONE,
	    "local-use NAT64 (64:ff9b:1::/48)" },
	{ "100::", 64, ADDR_DISCARD, EMBED_NONE, "discard-only (100::/64)" },
	{ "2001::", 32, ADDR_TEREDO, EMBED_NONE, "Teredo (2001::/32)" },
	{ "2001:db8::", 32, ADDR_DOCUMENTATION, EMBED_NONE,
	    "documentation (2001:db8::/32)" },
	{ "2001::", 23, ADDR_RESERVED, EMBED_NONE,
	    "IETF protocol assignments (2001::/23)" },
	{ "2002::", 16, ADDR_PUBLIC, EMBED_6TO4, "6to4" },
	{ "fc00::", 7, ADDR_ULA, EMBED_NONE, "unique local (fc00::/7)" },
	{ "fe80::", 10, ADDR_LINK_LOCAL, EMBED_NONE, "link-local (fe80::/10)" },
	{ "fec0::", 10, ADDR_SITE_LOCAL, EMBED_NONE, "site-local (fec0::/10)" },
	{ "ff00::", 8, ADDR_MULTICAST, EMBED_NONE, "multicast (ff00::/8)" },
	{ "2000::", 3, ADDR_PUBLIC, EMBED_NONE, "global unicast" },
	/* Everything outside 2000::/3 is not global unicast. */
	{ "::", 0, ADDR_RESERVED, EMBED_NONE,
	    "not global unicast (outside 2000::/3)" },
};

static const char *class_names[ADDR_CLASS_COUNT] = {
	[ADDR_PUBLIC] = "public",
	[ADDR_UNSPECIFIED] = "unspecified",
	[ADDR_THIS_NETWORK] = "this-network",
	[ADDR_LOOPBACK] = "loopback",
	[ADDR_PRIVATE] = "private",
	[ADDR_CGNAT] = "cgnat",
	[ADDR_LINK_LOCAL] = "link-local",
	[ADDR_METADATA] = "metadata",
	[ADDR_MULTICAST] = "multicast",
	[ADDR_BROADCAST] = "broadcast",
	[ADDR_RESERVED] = "reserved",
	[ADDR_DOCUMENTATION] = "documentation",
	[ADDR_BENCHMARK] = "benchmarking",
	[ADDR_ULA] = "unique-local",
	[ADDR_SITE_LOCAL] = "site-local",
	[ADDR_TEREDO] = "teredo",
	[ADDR_NAT64_LOCAL] = "nat64-local",
	[ADDR_DISCARD] = "discard",
};

static void
set_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
set_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Returns 1 if the first |prefix| bits of |a| and |b| are equal. */
static int
prefix_match(const unsigned char *a, const unsigned char *b, unsigned prefix)
{
	unsigned full = prefix / 8, rest = prefix % 8;
	unsigned char mask;

	if (memcmp(a, b, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (unsigned char)(0xff << (8 - rest));
	return (a[full] & mask) == (b[full] & mask);
}

static const char *
addr_str(int family, const unsigned char *addr, char *out, size_t outlen)
{
	if (inet_ntop(family, addr, out, (socklen_t)outlen) == NULL)
		snprintf(out, outlen, "?");
	return out;
}

static enum addr_class
classify_v4(const unsigned char *addr, const char **desc)
{
	unsigned char net[4];
	size_t i;

	for (i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); i++) {
		if (inet_pton(AF_INET, v4_ranges[i].net, net) != 1)
			continue;
		if (prefix_match(addr, net, v4_ranges[i].prefix)) {
			*desc = v4_ranges[i].desc;
			return v4_ranges[i].cls;
		}
	}
	*desc = "public";
	return ADDR_PUBLIC;
}

int
rules_parse_literal(const char *host, int *family, unsigned char addr[16])
{
	if (inet_pton(AF_INET, host, addr) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, host, addr) == 1)
		*family = AF_INET6;
	else
		return -1;
	return 0;
}

enum addr_class
rules_classify(int family, const unsigned char *addr, char *desc,
    size_t desclen)
{
	unsigned char net[16], v4[4];
	const char *d4;
	char a4[INET_ADDRSTRLEN];
	enum addr_class c;
	size_t i;

	set_msg(desc, desclen, "%s", "");
	if (family == AF_INET) {
		c = classify_v4(addr, &d4);
		set_msg(desc, desclen, "%s", d4);
		return c;
	}
	if (family != AF_INET6) {
		set_msg(desc, desclen, "not an IP address");
		return ADDR_RESERVED;
	}
	for (i = 0; i < sizeof(v6_ranges) / sizeof(v6_ranges[0]); i++) {
		const struct range *r = &v6_ranges[i];

		if (inet_pton(AF_INET6, r->net, net) != 1)
			continue;
		if (!prefix_match(addr, net, r->prefix))
			continue;
		if (r->embed == EMBED_NONE) {
			set_msg(desc, desclen, "%s", r->desc);
			return r->cls;
		}
		memcpy(v4, r->embed == EMBED_6TO4 ? addr + 2 : addr + 12, 4);
		c = classify_v4(v4, &d4);
		set_msg(desc, desclen, "%s address embedding %s, %s", r->desc,
		    addr_str(AF_INET, v4, a4, sizeof(a4)), d4);
		return c;
	}
	set_msg(desc, desclen, "reserved");
	return ADDR_RESERVED;
}

const char *
rules_class_name(enum addr_class c)
{
	if ((unsigned)c >= ADDR_CLASS_COUNT)
		return "unknown";
	return class_names[c];
}

struct rules *
rules_new(void)
{
	return calloc(1, sizeof(struct rules));
}

void
rules_free(struct rules *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nhosts; i++)
		free(r->hosts[i].text);
	for (i = 0; i < r->nips; i++)
		free(r->ips[i].text);
	free(r->hosts);
	free(r->ips);
	free(r);
}

size_t
rules_count(const struct rules *r)
{
	return r->nhosts + r->nips;
}

/* Parses a port: 1..65535 in plain decimal, or "*" (0) if |star_ok|. */
static int
parse_port(const char *s, size_t len, int star_ok, uint16_t *out)
{
	unsigned long v = 0;
	size_t i;

	*out = 0;
	if (star_ok && len == 1 && s[0] == '*')
		return 0;
	if (len == 0 || len > 5)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

/* Is |label| numeric in the URL standard's sense (digits, or 0x hex)? */
static int
label_is_numeric(const char *s, size_t len)
{
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < len; i++)
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		return 1;
	}
	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Exactly four decimal parts 0..255 without leading zeros. */
static int
canonical_v4(const char *s, unsigned char out[4])
{
	size_t part = 0, digits = 0;
	unsigned v = 0;
	const char *p;

	for (p = s;; p++) {
		if (*p >= '0' && *p <= '9') {
			if (digits > 0 && v == 0)
				return 0;	/* leading zero */
			v = v * 10 + (unsigned)(*p - '0');
			if (++digits > 3 || v > 255)
				return 0;
			continue;
		}
		if (*p != '.' && *p != '\0')
			return 0;
		if (digits == 0 || part >= 4)
			return 0;
		out[part++] = (unsigned char)v;
		v = 0;
		digits = 0;
		if (*p == '\0')
			break;
	}
	return part == 4;
}

/*
 * Normalizes a host name (not bracketed) into t->host: lowercase, one
 * trailing dot removed, LDH+underscore labels; recognizes a canonical
 * IPv4 literal and refuses a non-canonical one.
 */
static int
parse_host(const char *s, size_t len, struct rules_target *t, char *why,
    size_t whylen)
{
	size_t i, lstart = 0, lastlen;
	char c;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0) {
		set_msg(why, whylen, "empty host");
		return AL_ERR_FORMAT;
	}
	if (len >= RULES_HOST_MAX) {
		set_msg(why, whylen, "host name longer than %d bytes",
		    RULES_HOST_MAX - 1);
		return AL_ERR_FORMAT;
	}
	for (i = 0; i <= len; i++) {
		c = i < len ? s[i] : '.';
		if (c == '.') {
			if (i == lstart || i - lstart > 63) {
				set_msg(why, whylen, "invalid label in host "
				    "name");
				return AL_ERR_FORMAT;
			}
			lstart = i + 1;
			if (i < len)
				t->host[i] = '.';
			continue;
		}
		if (!(isalnum((unsigned char)c) || c == '-' || c == '_')) {
			set_msg(why, whylen, "invalid character in host name");
			return AL_ERR_FORMAT;
		}
		t->host[i] = (char)tolower((unsigned char)c);
	}
	t->host[len] = '\0';
	/* lstart is now one past the end; find the last label. */
	for (i = len; i > 0 && t->host[i - 1] != '.'; i--)
		;
	lastlen = len - i;
	if (label_is_numeric(t->host + i, lastlen)) {
		if (!canonical_v4(t->host, t->addr)) {
			set_msg(why, whylen, "non-canonical IPv4 literal "
			    "refused");
			return AL_ERR_FORMAT;
		}
		t->family = AF_INET;
	}
	return 0;
}

int
rules_parse_authority(const char *s, size_t len, uint16_t default_port,
    struct rules_target *t, char *why, size_t whylen)
{
	const char *hp, *pp = NULL, *close;
	size_t hlen, plen = 0, i;
	char tmp[INET6_ADDRSTRLEN + 1];
	int rc;

	memset(t, 0, sizeof(*t));
	set_msg(why, whylen, "%s", "");
	if (memchr(s, '@', len) != NULL) {
		set_msg(why, whylen, "userinfo in authority refused");
		return AL_ERR_FORMAT;
	}
	if (memchr(s, '\0', len) != NULL) {
		set_msg(why, whylen, "NUL in authority");
		return AL_ERR_FORMAT;
	}
	if (len > 0 && s[0] == '[') {
		if ((close = memchr(s, ']', len)) == NULL) {
			set_msg(why, whylen, "unterminated IPv6 literal");
			return AL_ERR_FORMAT;
		}
		hp = s + 1;
		hlen = (size_t)(close - hp);
		if (hlen == 0 || hlen >= sizeof(tmp) ||
		    memchr(hp, '%', hlen) != NULL) {
			set_msg(why, whylen, "invalid IPv6 literal");
			return AL_ERR_FORMAT;
		}
		memcpy(tmp, hp, hlen);
		tmp[hlen] = '\0';
		if (inet_pton(AF_INET6, tmp, t->addr) != 1) {
			set_msg(why, whylen, "invalid IPv6 literal");
			return AL_ERR_FORMAT;
		}
		t->family = AF_INET6;
		addr_str(AF_INET6, t->addr, t->host, sizeof(t->host));
		i = (size_t)(close - s) + 1;
		if (i < len) {
			if (s[i] != ':') {
				set_msg(why, whylen, "junk after IPv6 literal");
				return AL_ERR_FORMAT;
			}
			pp = s + i + 1;
			plen = len - i - 1;
		}
	} else {
		hp = s;
		hlen = len;
		for (i = 0; i < len; i++) {
			if (s[i] != ':')
				continue;
			if (pp != NULL) {
				set_msg(why, whylen, "IPv6 literal must be "
				    "in brackets");
				return AL_ERR_FORMAT;
			}
			pp = s + i + 1;
			plen = len - i - 1;
			hlen = i;
		}
		if ((rc = parse_host(hp, hlen, t, why, whylen)) != 0)
			return rc;
	}
	if (pp != NULL) {
		if (parse_port(pp, plen, 0, &t->port) != 0) {
			set_msg(why, whylen, "invalid port");
			return AL_ERR_FORMAT;
		}
	} else if (default_port != 0)
		t->port = default_port;
	else {
		set_msg(why, whylen, "port required");
		return AL_ERR_FORMAT;
	}
	return 0;
}

int
rules_add_host(struct rules *r, const char *pattern, char *err,
    size_t errlen)
{
	struct host_rule hr;
	struct rules_target t;
	const char *colon, *p = pattern;
	char why[RULES_REASON_MAX];
	void *n;

	memset(&hr, 0, sizeof(hr));
	set_msg(err, errlen, "%s", "");
	if (r->nhosts >= RULES_MAX) {
		set_msg(err, errlen, "too many host rules");
		return AL_ERR_FORMAT;
	}
	if ((colon = strrchr(pattern, ':')) == NULL) {
		set_msg(err, errlen, "%s: port required (host:port or "
		    "host:*)", pattern);
		return AL_ERR_FORMAT;
	}
	if (parse_port(colon + 1, strlen(colon + 1), 1, &hr.port) != 0) {
		set_msg(err, errlen, "%s: invalid port", pattern);
		return AL_ERR_FORMAT;
	}
	if (strncmp(p, "*.", 2) == 0) {
		hr.wildcard = 1;
		p += 2;
	}
	/* Parse the host part with a dummy port so the syntax is shared. */
	if (rules_parse_authority(p, (size_t)(colon - p), 1, &t, why,
	    sizeof(why)) != 0) {
		set_msg(err, errlen, "%s: %s", pattern, why);
		return AL_ERR_FORMAT;
	}
	if (hr.wildcard && t.family != 0) {
		set_msg(err, errlen, "%s: a wildcard cannot precede an IP "
		    "address", pattern);
		return AL_ERR_FORMAT;
	}
	/*
	 * "1.1.1.1." names 1.1.1.1, but the same text is no IP rule: the
	 * supervisor makes one of every literal, and it would not parse.
	 */
	if (t.family == AF_INET && colon[-1] == '.') {
		set_msg(err, errlen, "%s: an IP address with a trailing dot "
		    "(write %s)", pattern, t.host);
		return AL_ERR_FORMAT;
	}
	if (hr.wildcard && strchr(t.host, '.') == NULL) {
		set_msg(err, errlen, "%s: a wildcard needs at least two labels "
		    "after \"*.\" (no \"*.com\")", pattern);
		return AL_ERR_FORMAT;
	}
	if (strchr(t.host, '*') != NULL) {
		set_msg(err, errlen, "%s: '*' only as the whole first label",
		    pattern);
		return AL_ERR_FORMAT;
	}
	memcpy(hr.host, t.host, sizeof(hr.host));
	hr.family = t.family;
	memcpy(hr.addr, t.addr, sizeof(hr.addr));
	if ((hr.text = strdup(pattern)) == NULL)
		return AL_ERR_ALLOC;
	if ((n = reallocarray(r->hosts, r->nhosts + 1,
	    sizeof(*r->hosts))) == NULL) {
		free(hr.text);
		return AL_ERR_ALLOC;
	}
	r->hosts = n;
	r->hosts[r->nhosts++] = hr;
	return 0;
}

int
rules_add_ip(struct rules *r, const char *cidr, char *err, size_t errlen)
{
	struct ip_rule ir;
	char abuf[INET6_ADDRSTRLEN + 8];
	const char *p = cidr, *end, *slash, *port = NULL;
	unsigned long v;
	size_t alen;
	char *ep;
	void *n;

	memset(&ir, 0, sizeof(ir));
	set_msg(err, errlen, "%s", "");
	if (r->nips >= RULES_MAX) {
		set_msg(err, errlen, "too many IP rules");
		return AL_ERR_FORMAT;
	}
	if (*p == '[') {
		if ((end = strchr(p, ']')) == NULL)
			goto bad;
		alen = (size_t)(end - p - 1);
		if (alen >= sizeof(abuf))
			goto bad;
		memcpy(abuf, p + 1, alen);
		abuf[alen] = '\0';
		p = end + 1;
		ir.family = AF_INET6;
		ir.prefix = 128;
	} else {
		end = p + strcspn(p, "/:");
		alen = (size_t)(end - p);
		if (alen >= sizeof(abuf))
			goto bad;
		memcpy(abuf, p, alen);
		abuf[alen] = '\0';
		p = end;
		ir.family = AF_INET;
		ir.prefix = 32;
	}
	/* A prefix length inside the brackets, "[fc00::/7]". */
	if ((slash = strchr(abuf, '/')) != NULL) {
		if (*p == '/')
			goto bad;
		abuf[slash - abuf] = '\0';
		p = cidr + (slash - abuf) + 1 + 1;	/* past "[" and "/" */
		v = strtoul(p, &ep, 10);
		if (ep == p || *ep != ']' || v > 128)
			goto bad;
		ir.prefix = (unsigned)v;
		p = ep + 1;
	} else if (*p == '/') {
		p++;
		if (*p < '0' || *p > '9')
			goto bad;
		v = strtoul(p, &ep, 10);
		if (v > (ir.family == AF_INET ? 32UL : 128UL))
			goto bad;
		ir.prefix = (unsigned)v;
		p = ep;
	}
	if (*p == ':')
		port = p + 1;
	else if (*p != '\0')
		goto bad;
	if (ir.family == AF_INET ? !canonical_v4(abuf, ir.addr) :
	    inet_pton(AF_INET6, abuf, ir.addr) != 1)
		goto bad;
	if (port != NULL && parse_port(port, strlen(port), 1, &ir.port) != 0)
		goto bad;
	if ((ir.text = strdup(cidr)) == NULL)
		return AL_ERR_ALLOC;
	if ((n = reallocarray(r->ips, r->nips + 1, sizeof(*r->ips))) == NULL) {
		free(ir.text);
		return AL_ERR_ALLOC;
	}
	r->ips = n;
	r->ips[r->nips++] = ir;
	return 0;
 bad:
	set_msg(err, errlen, "%s: not an IP rule (a.b.c.d[/len][:port] or "
	    "[v6][/len][:port])", cidr);
	return AL_ERR_FORMAT;
}

/* IPv4-mapped addresses are matched against IPv4 rules as IPv4. */
static void
unmap(int *family, const unsigned char **addr)
{
	static const unsigned char mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	if (*family == AF_INET6 && memcmp(*addr, mapped, 12) == 0) {
		*family = AF_INET;
		*addr += 12;
	}
}

static const struct ip_rule *
ip_rule_match(const struct rules *r, int family, const unsigned char *addr,
    uint16_t port)
{
	size_t i;

	unmap(&family, &addr);
	for (i = 0; i < r->nips; i++) {
		const struct ip_rule *ir = &r->ips[i];

		if (ir->family != family)
			continue;
		if (ir->port != 0 && ir->port != port)
			continue;
		if (prefix_match(addr, ir->addr, ir->prefix))
			return ir;
	}
	return NULL;
}

static int
check_addr_bytes(const struct rules *r, int family, const unsigned char *addr,
    uint16_t port, char *rule, size_t rulelen, char *reason, size_t reasonlen)
{
	const struct ip_rule *ir;
	char desc[RULES_REASON_MAX], as[INET6_ADDRSTRLEN];

	if ((ir = ip_rule_match(r, family, addr, port)) != NULL) {
		set_msg(rule, rulelen, "allow-ip %s", ir->text);
		return 1;
	}
	if (rules_classify(family, addr, desc, sizeof(desc)) == ADDR_PUBLIC) {
		set_msg(rule, rulelen, "public address");
		return 1;
	}
	set_msg(reason, reasonlen, "address %s is %s",
	    addr_str(family, addr, as, sizeof(as)), desc);
	return 0;
}

int
rules_check_addr(const struct rules *r, const struct sockaddr *sa,
    uint16_t port, char *rule, size_t rulelen, char *reason, size_t reasonlen)
{
	set_msg(rule, rulelen, "%s", "");
	set_msg(reason, reasonlen, "%s", "");
	if (sa->sa_family == AF_INET)
		return check_addr_bytes(r, AF_INET, (const unsigned char *)
		    &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
		    port, rule, rulelen, reason, reasonlen);
	if (sa->sa_family == AF_INET6)
		return check_addr_bytes(r, AF_INET6, (const unsigned char *)
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
		    port, rule, rulelen, reason, reasonlen);
	set_msg(reason, reasonlen, "address family %d refused", sa->sa_family);
	return 0;
}

static int
host_rule_match(const struct host_rule *hr, const struct rules_target *t)
{
	size_t hl, sl;

	if (hr->port != 0 && hr->port != t->port)
		return 0;
	if (hr->family != 0 || t->family != 0)
		return hr->family == t->family &&
		    memcmp(hr->addr, t->addr, 16) == 0;
	if (!hr->wildcard)
		return strcmp(hr->host, t->host) == 0;
	hl = strlen(t->host);
	sl = strlen(hr->host);
	return hl > sl + 1 && t->host[hl - sl - 1] == '.' &&
	    strcmp(t->host + hl - sl, hr->host) == 0;
}

int
rules_check_target(const struct rules *r, const struct rules_target *t,
    char *rule, size_t rulelen, char *reason, size_t reasonlen)
{
	const struct ip_rule *ir;
	char desc[RULES_REASON_MAX];
	size_t i;

	set_msg(rule, rulelen, "%s", "");
	set_msg(reason, reasonlen, "%s", "");
	if (t->family != 0) {
		if ((ir = ip_rule_match(r, t->family, t->addr, t->port))
		    != NULL) {
			set_msg(rule, rulelen, "allow-ip %s", ir->text);
			return 1;
		}
		if (rules_classify(t->family, t->addr, desc, sizeof(desc)) !=
		    ADDR_PUBLIC) {
			set_msg(reason, reasonlen, "address %s is %s", t->host,
			    desc);
			return 0;
		}
	}
	for (i = 0; i < r->nhosts; i++) {
		if (host_rule_match(&r->hosts[i], t)) {
			set_msg(rule, rulelen, "allow %s", r->hosts[i].text);
			return 1;
		}
	}
	if (t->family == AF_INET6)
		set_msg(reason, reasonlen, "host not in allowlist: [%s]:%u",
		    t->host, t->port);
	else
		set_msg(reason, reasonlen, "host not in allowlist: %s:%u",
		    t->host, t->port);
	return 0;
}
