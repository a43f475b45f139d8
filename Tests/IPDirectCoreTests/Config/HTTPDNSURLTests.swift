import Testing
@testable import IPDirectCore

/// Provider URLs split into scheme, host, port, Host header and request target.
@Suite struct HTTPDNSURLTests {
    @Test(arguments: [
        ("https://dns.google/dns-query", true, "dns.google", 443, "dns.google", "/dns-query"),
        ("HTTPS://DNS.Google./resolve?ct=application/dns-json", true, "dns.google", 443, "dns.google", "/resolve?ct=application/dns-json"),
        ("http://203.107.1.1", false, "203.107.1.1", 80, "203.107.1.1", "/"),
        ("http://203.107.1.1/", false, "203.107.1.1", 80, "203.107.1.1", "/"),
        ("http://119.29.29.98:8080/d", false, "119.29.29.98", 8080, "119.29.29.98:8080", "/d"),
        ("https://[2001:DB8::0053]:8443/dns-query", true, "2001:db8::53", 8443, "[2001:db8::53]:8443", "/dns-query"),
        ("https://[2001:db8::53]/dns-query", true, "2001:db8::53", 443, "[2001:db8::53]", "/dns-query"),
        ("https://doh.example:443/q", true, "doh.example", 443, "doh.example", "/q"),
        ("http://doh.example:443/q", false, "doh.example", 443, "doh.example:443", "/q"),
        ("https://doh.example?x=1", true, "doh.example", 443, "doh.example", "/?x=1"),
    ] as [(String, Bool, String, UInt16, String, String)])
    func splitsAURLIntoItsParts(text: String, isHTTPS: Bool, host: String, port: UInt16, authority: String, path: String) throws {
        let url = try #require(HTTPDNSURL(text))
        #expect(url == HTTPDNSURL(isHTTPS: isHTTPS, host: host, port: port, authority: authority, path: path))
    }

    @Test(arguments: [
        ("tls://dns.alidns.com", "dns.alidns.com", 853, "dns.alidns.com"),
        ("TLS://Dot.Example:8853/", "dot.example", 8853, "dot.example:8853"),
        ("tls://[2001:db8::53]", "2001:db8::53", 853, "[2001:db8::53]"),
    ] as [(String, String, UInt16, String)])
    func readsDNSOverTLSURLsWithPort853ByDefault(text: String, host: String, port: UInt16, authority: String) throws {
        let url = try #require(HTTPDNSURL(text))
        #expect(url == HTTPDNSURL(isHTTPS: false, isDoT: true, host: host, port: port, authority: authority, path: "/"))
        #expect(url.usesTLS)
        #expect(url.description == "tls://\(authority)")
    }

    @Test func printsTheNormalForm() {
        #expect(HTTPDNSURL("HTTPS://Dns.Google:443/dns-query")?.description == "https://dns.google/dns-query")
        #expect(HTTPDNSURL("http://[::1]:8053/d")?.description == "http://[::1]:8053/d")
    }

    @Test func knowsWhenTheHostIsAnAddress() {
        #expect(HTTPDNSURL("http://119.29.29.98/d")?.hostAddress == IPAddress("119.29.29.98"))
        #expect(HTTPDNSURL("https://[2606:4700:4700::1111]/dns-query")?.hostAddress == IPAddress("2606:4700:4700::1111"))
        #expect(HTTPDNSURL("https://dns.google/dns-query")?.hostAddress == nil)
    }

    @Test(arguments: [
        ("ftp://dns.example/dns-query", "'ftp://dns.example/dns-query' is not an http://, https:// or tls:// URL"),
        ("dns.example/dns-query", "'dns.example/dns-query' is not an http://, https:// or tls:// URL"),
        ("https://user:pw@dns.example/dns-query",
         "'https://user:pw@dns.example/dns-query' has userinfo (user@); put credentials in secret_file, secret_env, token_file or token_env"),
        ("https://dns.example/dns-query#frag",
         "'https://dns.example/dns-query#frag' has a fragment (#...), which is never sent to the server; remove it"),
        ("https://dns.example/a b", "'https://dns.example/a b' contains spaces, control or non-ASCII characters; percent-encode them"),
        ("https:///dns-query", "'https:///dns-query': the URL has no host"),
        ("https://dns.example:0/q", "'https://dns.example:0/q': '0' is not a port (1-65535)"),
        ("https://dns.example:/q", "'https://dns.example:/q': '' is not a port (1-65535)"),
        ("https://dns.example:65536/q", "'https://dns.example:65536/q': '65536' is not a port (1-65535)"),
        ("https://2001:db8::53/q", "'https://2001:db8::53/q': write an IPv6 address in brackets, as in https://[2001:db8::53]/dns-query"),
        ("https://[192.0.2.1]/q", "'https://[192.0.2.1]/q': '192.0.2.1' is not an IPv6 address (no zone)"),
        ("https://[fe80::1%25eth0]/q", "'https://[fe80::1%25eth0]/q': 'fe80::1%25eth0' is not an IPv6 address (no zone)"),
        ("tls://dot.example/dns-query", "'tls://dot.example/dns-query' has a path or query; a DNS-over-TLS URL is tls://host or tls://host:port"),
        ("tls://dot.example?x=1", "'tls://dot.example?x=1' has a path or query; a DNS-over-TLS URL is tls://host or tls://host:port"),
        ("https://dns_1.example/q", "'https://dns_1.example/q': 'dns_1.example' is not a host name: only letters, digits, hyphens and dots are allowed"),
    ])
    func refusesURLsItCannotQuery(text: String, message: String) {
        guard case .failure(let rejection) = HTTPDNSURL.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(rejection.message == message)
    }
}
