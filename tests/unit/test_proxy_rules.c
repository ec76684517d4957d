/* SPDX-License-Identifier: ISC */
/* Copyright (c) 2026 The airlock authors */
/* Table-driven tests for the egress proxy's allowlist and classifier. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "proxy/rules.h"

/* --- authority parsing ------------------------------------------------ */

static const struct parse_row {
	const char	*in;
	uint16_t	 defport;
	int		 ok;
	const char	*host;
	uint16_t	 port;
	int		 family;
} parse_rows[] = {
	{ "example.com:443", 0, 1, "example.com", 443, 0 },
	{ "EXAMPLE.Com:443", 0, 1, "example.com", 443, 0 },
	{ "example.com.:443", 0, 1, "example.com", 443, 0 },
	{ "example.com", 80, 1, "example.com", 80, 0 },
	{ "example.com", 0, 0, NULL, 0, 0 },		/* port required */
	{ "example.com:", 0, 0, NULL, 0, 0 },
	{ "example.com:0", 0, 0, NULL, 0, 0 },
	{ "example.com:65536", 0, 0, NULL, 0, 0 },
	{ "example.com:+443", 0, 0, NULL, 0, 0 },
	{ "example.com:443x", 0, 0, NULL, 0, 0 },
	{ "example.com:65535", 0, 1, "example.com", 65535, 0 },
	{ "a_b-c.example.com:1", 0, 1, "a_b-c.example.com", 1, 0 },
	{ "user@example.com:443", 0, 0, NULL, 0, 0 },	/* userinfo */
	{ "example..com:443", 0, 0, NULL, 0, 0 },	/* empty label */
	{ ".example.com:443", 0, 0, NULL, 0, 0 },
	{ "example.com..:443", 0, 0, NULL, 0, 0 },
	{ ":443", 0, 0, NULL, 0, 0 },
	{ "exa mple.com:443", 0, 0, NULL, 0, 0 },
	{ "exa%2ample.com:443", 0, 0, NULL, 0, 0 },
	{ "*.example.com:443", 0, 0, NULL, 0, 0 },
	{ "127.0.0.1:80", 0, 1, "127.0.0.1", 80, AF_INET },
	{ "127.0.0.1.:80", 0, 1, "127.0.0.1", 80, AF_INET },
	{ "8.8.8.8:53", 0, 1, "8.8.8.8", 53, AF_INET },
	{ "0.0.0.0:80", 0, 1, "0.0.0.0", 80, AF_INET },
	{ "2130706433:80", 0, 0, NULL, 0, 0 },		/* decimal */
	{ "0177.0.0.1:80", 0, 0, NULL, 0, 0 },		/* octal */
	{ "0x7f.0.0.1:80", 0, 0, NULL, 0, 0 },		/* hex */
	{ "0x7f000001:80", 0, 0, NULL, 0, 0 },
	{ "127.1:80", 0, 0, NULL, 0, 0 },		/* short form */
	{ "127.0.1:80", 0, 0, NULL, 0, 0 },
	{ "1.2.3.04:80", 0, 0, NULL, 0, 0 },		/* leading zero */
	{ "1.2.3.256:80", 0, 0, NULL, 0, 0 },
	{ "1.2.3.4.5:80", 0, 0, NULL, 0, 0 },
	{ "foo.0x10:80", 0, 0, NULL, 0, 0 },		/* numeric last label */
	{ "foo.123:80", 0, 0, NULL, 0, 0 },
	{ "0x:80", 0, 0, NULL, 0, 0 },
	{ "123.example.com:80", 0, 1, "123.example.com", 80, 0 },
	{ "0x7f.example.com:80", 0, 1, "0x7f.example.com", 80, 0 },
	{ "[::1]:443", 0, 1, "::1", 443, AF_INET6 },
	{ "[::1]", 443, 1, "::1", 443, AF_INET6 },
	{ "[2001:DB8::1]:443", 0, 1, "2001:db8::1", 443, AF_INET6 },
	{ "[::ffff:127.0.0.1]:80", 0, 1, "::ffff:127.0.0.1", 80, AF_INET6 },
	{ "[fe80::1%eth0]:80", 0, 0, NULL, 0, 0 },	/* zone id */
	{ "[fe80::1%25eth0]:80", 0, 0, NULL, 0, 0 },
	{ "[::1:443", 0, 0, NULL, 0, 0 },
	{ "[::1]x:443", 0, 0, NULL, 0, 0 },
	{ "[nothex]:443", 0, 0, NULL, 0, 0 },
	{ "::1:443", 0, 0, NULL, 0, 0 },		/* unbracketed v6 */
	{ "[]:443", 0, 0, NULL, 0, 0 },
};

START_TEST(test_authority_parsing_normalizes_and_refuses_odd_forms)
{
	const struct parse_row *row = &parse_rows[_i];
	struct rules_target t;
	char why[RULES_REASON_MAX];
	int rc;

	rc = rules_parse_authority(row->in, strlen(row->in), row->defport, &t,
	    why, sizeof(why));
	if (!row->ok) {
		ck_assert_msg(rc == AL_ERR_FORMAT, "%s: accepted as %s",
		    row->in, t.host);
		ck_assert_msg(why[0] != '\0', "%s: no reason", row->in);
		return;
	}
	ck_assert_msg(rc == 0, "%s: refused: %s", row->in, why);
	ck_assert_str_eq(t.host, row->host);
	ck_assert_uint_eq(t.port, row->port);
	ck_assert_int_eq(t.family, row->family);
}
END_TEST

/* --- classification --------------------------------------------------- */

static const struct class_row {
	const char	*addr;
	enum addr_class	 cls;
	const char	*desc;		/* substring of the description */
} class_rows[] = {
	{ "8.8.8.8", ADDR_PUBLIC, "public" },
	{ "1.1.1.1", ADDR_PUBLIC, "public" },
	{ "93.184.216.34", ADDR_PUBLIC, "public" },
	{ "0.0.0.0", ADDR_UNSPECIFIED, "unspecified" },
	{ "0.1.2.3", ADDR_THIS_NETWORK, "0.0.0.0/8" },
	{ "127.0.0.1", ADDR_LOOPBACK, "loopback" },
	{ "127.255.255.254", ADDR_LOOPBACK, "loopback" },
	{ "10.0.0.5", ADDR_PRIVATE, "RFC 1918" },
	{ "10.255.255.255", ADDR_PRIVATE, "RFC 1918" },
	{ "172.16.0.1", ADDR_PRIVATE, "RFC 1918" },
	{ "172.31.255.255", ADDR_PRIVATE, "RFC 1918" },
	{ "172.15.255.255", ADDR_PUBLIC, "public" },
	{ "172.32.0.0", ADDR_PUBLIC, "public" },
	{ "192.168.1.1", ADDR_PRIVATE, "RFC 1918" },
	{ "192.169.0.1", ADDR_PUBLIC, "public" },
	{ "100.64.0.1", ADDR_CGNAT, "CGNAT" },
	{ "100.127.255.255", ADDR_CGNAT, "CGNAT" },
	{ "100.100.100.200", ADDR_CGNAT, "CGNAT" },
	{ "100.63.255.255", ADDR_PUBLIC, "public" },
	{ "100.128.0.0", ADDR_PUBLIC, "public" },
	{ "169.254.169.254", ADDR_METADATA, "metadata" },
	{ "169.254.170.2", ADDR_LINK_LOCAL, "link-local" },
	{ "169.254.0.1", ADDR_LINK_LOCAL, "link-local" },
	{ "168.63.129.16", ADDR_METADATA, "metadata" },
	{ "224.0.0.1", ADDR_MULTICAST, "multicast" },
	{ "239.255.255.250", ADDR_MULTICAST, "multicast" },
	{ "255.255.255.255", ADDR_BROADCAST, "broadcast" },
	{ "240.0.0.1", ADDR_RESERVED, "reserved" },
	{ "192.0.0.192", ADDR_RESERVED, "IETF" },
	{ "192.0.2.1", ADDR_DOCUMENTATION, "documentation" },
	{ "198.51.100.7", ADDR_DOCUMENTATION, "documentation" },
	{ "203.0.113.9", ADDR_DOCUMENTATION, "documentation" },
	{ "198.18.0.1", ADDR_BENCHMARK, "benchmarking" },
	{ "198.19.255.255", ADDR_BENCHMARK, "benchmarking" },
	{ "192.88.99.1", ADDR_RESERVED, "6to4 relay" },
	{ "2606:4700::1111", ADDR_PUBLIC, "global unicast" },
	{ "2a00:1450:4001::1", ADDR_PUBLIC, "global unicast" },
	{ "::", ADDR_UNSPECIFIED, "unspecified" },
	{ "::1", ADDR_LOOPBACK, "loopback" },
	{ "fd00:ec2::254", ADDR_METADATA, "metadata" },
	{ "fd00::1", ADDR_ULA, "unique local" },
	{ "fc00::1", ADDR_ULA, "unique local" },
	{ "fe80::1", ADDR_LINK_LOCAL, "link-local" },
	{ "febf::1", ADDR_LINK_LOCAL, "link-local" },
	{ "fec0::1", ADDR_SITE_LOCAL, "site-local" },
	{ "ff02::1", ADDR_MULTICAST, "multicast" },
	{ "ff05::1:3", ADDR_MULTICAST, "multicast" },
	{ "::ffff:127.0.0.1", ADDR_LOOPBACK, "IPv4-mapped" },
	{ "::ffff:10.0.0.5", ADDR_PRIVATE, "IPv4-mapped" },
	{ "::ffff:169.254.169.254", ADDR_METADATA, "embedding 169.254.169.254" },
	{ "::ffff:8.8.8.8", ADDR_PUBLIC, "IPv4-mapped" },
	{ "::ffff:0.0.0.0", ADDR_UNSPECIFIED, "IPv4-mapped" },
	{ "::ffff:0:127.0.0.1", ADDR_LOOPBACK, "IPv4-translated" },
	{ "::127.0.0.1", ADDR_LOOPBACK, "IPv4-compatible" },
	{ "::10.1.2.3", ADDR_PRIVATE, "IPv4-compatible" },
	{ "::0.0.0.2", ADDR_THIS_NETWORK, "IPv4-compatible" },
	{ "::8.8.8.8", ADDR_PUBLIC, "IPv4-compatible" },
	{ "64:ff9b::7f00:1", ADDR_LOOPBACK, "NAT64" },
	{ "64:ff9b::a9fe:a9fe", ADDR_METADATA, "NAT64" },
	{ "64:ff9b::192.168.0.1", ADDR_PRIVATE, "NAT64" },
	{ "64:ff9b::808:808", ADDR_PUBLIC, "NAT64" },
	{ "64:ff9b:1::808:808", ADDR_NAT64_LOCAL, "local-use NAT64" },
	{ "64:ff9b:1:ffff::1", ADDR_NAT64_LOCAL, "local-use NAT64" },
	{ "2002:7f00:1::", ADDR_LOOPBACK, "6to4" },
	{ "2002:a00:5::1", ADDR_PRIVATE, "6to4" },
	{ "2002:a9fe:a9fe::1", ADDR_METADATA, "6to4" },
	{ "2002:808:808::1", ADDR_PUBLIC, "6to4" },
	{ "2001:db8::1", ADDR_DOCUMENTATION, "documentation" },
	{ "2001:0:4136:e378::1", ADDR_TEREDO, "Teredo" },
	{ "2001:2::1", ADDR_RESERVED, "IETF" },
	{ "100::1", ADDR_DISCARD, "discard" },
	{ "4000::1", ADDR_RESERVED, "not global unicast" },
	{ "1::1", ADDR_RESERVED, "not global unicast" },
	{ "3fff:ffff::1", ADDR_PUBLIC, "global unicast" },
};

START_TEST(test_every_forbidden_address_class_is_recognised)
{
	const struct class_row *row = &class_rows[_i];
	unsigned char a[16];
	char desc[RULES_REASON_MAX];
	int family = strchr(row->addr, ':') ? AF_INET6 : AF_INET;
	enum addr_class c;

	ck_assert_int_eq(inet_pton(family, row->addr, a), 1);
	c = rules_classify(family, a, desc, sizeof(desc));
	ck_assert_msg(c == row->cls, "%s: class %s, want %s (%s)", row->addr,
	    rules_class_name(c), rules_class_name(row->cls), desc);
	ck_assert_msg(strstr(desc, row->desc) != NULL, "%s: desc '%s' lacks "
	    "'%s'", row->addr, desc, row->desc);
}
END_TEST

/* --- rule syntax -------------------------------------------------------- */

static const struct syntax_row {
	int		 ip;	/* 1: rules_add_ip */
	const char	*text;
	int		 ok;
} syntax_rows[] = {
	{ 0, "example.com:443", 1 },
	{ 0, "*.example.com:443", 1 },
	{ 0, "example.com:*", 1 },
	{ 0, "Example.COM.:443", 1 },
	{ 0, "8.8.8.8:53", 1 },
	{ 0, "8.8.8.8.:53", 0 },		/* its IP rule would not parse */
	{ 0, "[2001:db8::1]:443", 1 },
	{ 0, "example.com", 0 },		/* port is required */
	{ 0, "*:443", 0 },
	{ 0, "*:*", 0 },
	{ 0, "*.*.example.com:443", 0 },
	{ 0, "a.*.example.com:443", 0 },
	{ 0, "*example.com:443", 0 },
	{ 0, "*.8.8.8.8:443", 0 },
	{ 0, "*.com:443", 0 },			/* whole TLD */
	{ 0, "*.co.uk:443", 1 },		/* explicit; documented */
	{ 0, "example.com:0", 0 },
	{ 0, "example.com:99999", 0 },
	{ 0, "0x7f000001:80", 0 },
	{ 0, "[::1]", 0 },
	{ 0, "", 0 },
	{ 1, "127.0.0.1", 1 },
	{ 1, "127.0.0.1/32", 1 },
	{ 1, "127.0.0.1/32:8080", 1 },
	{ 1, "10.0.0.0/8:*", 1 },
	{ 1, "0.0.0.0/0", 1 },
	{ 1, "[::1]", 1 },
	{ 1, "[::1]/128:80", 1 },
	{ 1, "[fc00::/7]:443", 1 },
	{ 1, "[fc00::]/7", 1 },
	{ 1, "127.0.0.1/33", 0 },
	{ 1, "127.0.0.1/", 0 },
	{ 1, "127.0.0.1:0", 0 },
	{ 1, "127.1", 0 },
	{ 1, "0177.0.0.1", 0 },
	{ 1, "localhost", 0 },
	{ 1, "::1", 0 },			/* v6 must be bracketed */
	{ 1, "[::1]/129", 0 },
	{ 1, "[::1", 0 },
	{ 1, "[fc00::/7]/8", 0 },
	{ 1, "127.0.0.1:80x", 0 },
	{ 1, "", 0 },
};

START_TEST(test_rule_syntax_accepts_only_documented_forms)
{
	const struct syntax_row *row = &syntax_rows[_i];
	struct rules *r;
	char err[RULES_REASON_MAX];
	int rc;

	ck_assert_ptr_nonnull(r = rules_new());
	rc = row->ip ? rules_add_ip(r, row->text, err, sizeof(err)) :
	    rules_add_host(r, row->text, err, sizeof(err));
	if (row->ok)
		ck_assert_msg(rc == 0, "'%s' refused: %s", row->text, err);
	else {
		ck_assert_msg(rc == AL_ERR_FORMAT, "'%s' accepted", row->text);
		ck_assert_msg(err[0] != '\0', "'%s': no message", row->text);
	}
	rules_free(r);
}
END_TEST

/* --- decisions ---------------------------------------------------------- */

static const char *decision_hosts[] = {
	"api.example.com:443",
	"*.pkg.example.org:443",
	"Docs.Example.NET.:*",
	"93.184.216.34:80",
	"[2606:4700::1111]:443",
	"localhost:8080",
	NULL
};
static const char *decision_ips[] = {
	"127.0.0.1/32:8080",
	"[::1]:9090",
	"10.1.0.0/16:*",
	NULL
};

static const struct decision_row {
	const char	*authority;
	int		 allowed;
	const char	*text;	/* substring of the rule or reason */
} decision_rows[] = {
	{ "api.example.com:443", 1, "allow api.example.com:443" },
	{ "API.EXAMPLE.COM.:443", 1, "allow api.example.com:443" },
	{ "api.example.com:80", 0, "host not in allowlist: api.example.com:80" },
	{ "example.com:443", 0, "host not in allowlist: example.com:443" },
	{ "xapi.example.com:443", 0, "not in allowlist" },
	{ "api.example.com.evil.com:443", 0, "not in allowlist" },
	{ "evil.com:443", 0, "host not in allowlist: evil.com:443" },
	{ "a.pkg.example.org:443", 1, "allow *.pkg.example.org:443" },
	{ "a.b.c.pkg.example.org:443", 1, "allow *.pkg.example.org:443" },
	{ "pkg.example.org:443", 0, "not in allowlist" },
	{ "badpkg.example.org:443", 0, "not in allowlist" },
	{ "xpkg.example.org:443", 0, "not in allowlist" },
	{ "a.pkg.example.org.evil.com:443", 0, "not in allowlist" },
	{ "a.pkg.example.org:8443", 0, "not in allowlist" },
	{ "docs.example.net:1", 1, "allow Docs.Example.NET.:*" },
	{ "docs.example.net:65535", 1, "allow Docs.Example.NET.:*" },
	{ "www.docs.example.net:443", 0, "not in allowlist" },
	{ "93.184.216.34:80", 1, "allow 93.184.216.34:80" },
	{ "93.184.216.34:443", 0, "host not in allowlist: 93.184.216.34:443" },
	{ "[2606:4700::1111]:443", 1, "allow [2606:4700::1111]:443" },
	{ "[2606:4700:0::1111]:443", 1, "allow" },
	{ "127.0.0.1:8080", 1, "allow-ip 127.0.0.1/32:8080" },
	{ "127.0.0.1:8081", 0, "address 127.0.0.1 is loopback" },
	{ "127.0.0.2:8080", 0, "is loopback" },
	{ "[::ffff:127.0.0.1]:8080", 1, "allow-ip 127.0.0.1/32:8080" },
	{ "[::1]:9090", 1, "allow-ip [::1]:9090" },
	{ "[::1]:9091", 0, "address ::1 is loopback" },
	{ "10.1.2.3:22", 1, "allow-ip 10.1.0.0/16:*" },
	{ "10.2.2.3:22", 0, "address 10.2.2.3 is private (RFC 1918)" },
	{ "169.254.169.254:80", 0, "is cloud metadata" },
	{ "[fd00:ec2::254]:80", 0, "is cloud metadata" },
	{ "[::ffff:169.254.169.254]:80", 0, "IPv4-mapped" },
	{ "[64:ff9b::a9fe:a9fe]:80", 0, "NAT64" },
	{ "[2002:a9fe:a9fe::]:80", 0, "6to4" },
	{ "[::127.0.0.1]:8080", 0, "IPv4-compatible" },
	{ "0.0.0.0:8080", 0, "unspecified" },
	{ "100.64.1.1:443", 0, "CGNAT" },
	{ "192.168.0.1:443", 0, "private (RFC 1918)" },
	{ "224.0.0.1:443", 0, "multicast" },
	{ "255.255.255.255:443", 0, "broadcast" },
	{ "8.8.8.8:443", 0, "host not in allowlist: 8.8.8.8:443" },
	/* a name rule for localhost passes step 1; step 2 checks addresses */
	{ "localhost:8080", 1, "allow localhost:8080" },
};

START_TEST(test_target_decision_names_the_rule)
{
	const struct decision_row *row = &decision_rows[_i];
	struct rules *r;
	struct rules_target t;
	char err[RULES_REASON_MAX], rule[RULES_REASON_MAX],
	    reason[RULES_REASON_MAX];
	size_t i;
	int ok;

	ck_assert_ptr_nonnull(r = rules_new());
	for (i = 0; decision_hosts[i] != NULL; i++)
		ck_assert_msg(rules_add_host(r, decision_hosts[i], err,
		    sizeof(err)) == 0, "%s", err);
	for (i = 0; decision_ips[i] != NULL; i++)
		ck_assert_msg(rules_add_ip(r, decision_ips[i], err,
		    sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(rules_parse_authority(row->authority,
	    strlen(row->authority), 0, &t, err, sizeof(err)), 0);
	ok = rules_check_target(r, &t, rule, sizeof(rule), reason,
	    sizeof(reason));
	ck_assert_msg(ok == row->allowed, "%s: got %d (%s%s)", row->authority,
	    ok, rule, reason);
	ck_assert_msg(strstr(ok ? rule : reason, row->text) != NULL,
	    "%s: '%s' lacks '%s'", row->authority, ok ? rule : reason,
	    row->text);
	rules_free(r);
}
END_TEST

/* Resolved addresses (step 2), with one IP rule for port 8080. */
static const struct addr_row {
	const char	*addr;
	uint16_t	 port;
	int		 allowed;
	const char	*text;
} addr_rows[] = {
	{ "127.0.0.1", 8080, 1, "allow-ip 127.0.0.1/32:8080" },
	{ "127.0.0.1", 80, 0, "address 127.0.0.1 is loopback (127.0.0.0/8)" },
	{ "::ffff:127.0.0.1", 8080, 1, "allow-ip" },
	{ "::ffff:127.0.0.1", 80, 0, "IPv4-mapped" },
	{ "::1", 8080, 0, "address ::1 is loopback (::1)" },
	{ "93.184.216.34", 443, 1, "public address" },
	{ "2606:4700::1111", 443, 1, "public address" },
	{ "10.0.0.5", 443, 0, "address 10.0.0.5 is private (RFC 1918)" },
	{ "169.254.169.254", 80, 0, "cloud metadata (169.254.169.254)" },
	{ "fd00:ec2::254", 80, 0, "cloud metadata (fd00:ec2::254)" },
	{ "fe80::1", 80, 0, "link-local" },
	{ "64:ff9b::a00:5", 80, 0, "NAT64 address embedding 10.0.0.5" },
	{ "2002:c0a8:101::", 80, 0, "6to4 address embedding 192.168.1.1" },
};

START_TEST(test_resolved_address_check)
{
	const struct addr_row *row = &addr_rows[_i];
	struct rules *r;
	struct sockaddr_storage ss;
	char err[RULES_REASON_MAX], rule[RULES_REASON_MAX],
	    reason[RULES_REASON_MAX];
	int ok;

	memset(&ss, 0, sizeof(ss));
	if (strchr(row->addr, ':') != NULL) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, row->addr,
		    &s6->sin6_addr), 1);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		ck_assert_int_eq(inet_pton(AF_INET, row->addr, &s4->sin_addr),
		    1);
	}
	ck_assert_ptr_nonnull(r = rules_new());
	ck_assert_int_eq(rules_add_ip(r, "127.0.0.1/32:8080", err,
	    sizeof(err)), 0);
	ok = rules_check_addr(r, (struct sockaddr *)&ss, row->port, rule,
	    sizeof(rule), reason, sizeof(reason));
	ck_assert_msg(ok == row->allowed, "%s: got %d (%s%s)", row->addr, ok,
	    rule, reason);
	ck_assert_msg(strstr(ok ? rule : reason, row->text) != NULL,
	    "%s: '%s' lacks '%s'", row->addr, ok ? rule : reason, row->text);
	rules_free(r);
}
END_TEST

START_TEST(test_empty_rules_deny_everything)
{
	struct rules *r;
	struct rules_target t;
	char why[RULES_REASON_MAX], rule[RULES_REASON_MAX];

	ck_assert_ptr_nonnull(r = rules_new());
	ck_assert_uint_eq(rules_count(r), 0);
	ck_assert_int_eq(rules_parse_authority("example.com:443", 15, 0, &t,
	    why, sizeof(why)), 0);
	ck_assert_int_eq(rules_check_target(r, &t, rule, sizeof(rule), why,
	    sizeof(why)), 0);
	ck_assert_int_eq(rules_parse_authority("8.8.8.8:443", 11, 0, &t,
	    why, sizeof(why)), 0);
	ck_assert_int_eq(rules_check_target(r, &t, rule, sizeof(rule), why,
	    sizeof(why)), 0);
	rules_free(r);
	rules_free(NULL);
}
END_TEST

#define NROWS(a)	((int)(sizeof(a) / sizeof((a)[0])))

int
main(void)
{
	Suite *s = suite_create("proxy_rules");
	TCase *tc = tcase_create("rules");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc,
	    test_authority_parsing_normalizes_and_refuses_odd_forms, 0,
	    NROWS(parse_rows));
	tcase_add_loop_test(tc, test_every_forbidden_address_class_is_recognised,
	    0, NROWS(class_rows));
	tcase_add_loop_test(tc, test_rule_syntax_accepts_only_documented_forms,
	    0, NROWS(syntax_rows));
	tcase_add_loop_test(tc, test_target_decision_names_the_rule, 0,
	    NROWS(decision_rows));
	tcase_add_loop_test(tc, test_resolved_address_check, 0,
	    NROWS(addr_rows));
	tcase_add_test(tc, test_empty_rules_deny_everything);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
