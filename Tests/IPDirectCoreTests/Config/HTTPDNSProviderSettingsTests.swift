import Testing
@testable import IPDirectCore

/// `[[resolver.httpdns]]` tables: every key of every format, and every rule with its line.
/// The addresses are documentation ranges (RFC 5737, RFC 3849): only parsed, never contacted.
@Suite struct HTTPDNSProviderSettingsTests {
    static func providers(_ text: String) throws -> [HTTPDNSProviderSettings] {
        try Config.parse(text).get().resolver.httpdns
    }

    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    /// A table of `format` with `keys` after its name and format, starting on line 1.
    static func table(_ format: String, _ keys: String) -> String {
        "[[resolver.httpdns]]\nname = \"p\"\nformat = \"\(format)\"\n\(keys)"
    }

    @Test func readsEveryKeyOfEveryFormatInTheOrderListed() throws {
        let providers = try Self.providers("""
            [resolver]
            order = ["httpdns", "system"]

            [[resolver.httpdns]]
            name = "doh-post"
            format = "doh"
            url = "https://doh.example/dns-query"
            bootstrap = ["192.0.2.1", "2001:db8::1"]
            ca_file = "test-ca.pem"
            timeout_ms = 500
            method = "post"

            [[resolver.httpdns]]
            name = "json"
            format = "json"
            url = "https://json.example/resolve"
            bootstrap = ["192.0.2.2"]

            [[resolver.httpdns]]
            name = "aliyun_signed"
            format = "aliyun"
            url = "http://192.0.2.3"
            account_id = "100000"
            secret_env = "ALIYUN_SECRET"

            [[resolver.httpdns]]
            name = "tencent.token"
            format = "tencent"
            url = "https://192.0.2.4/d"
            token_file = "/etc/ipdirect/dnspod-token"

            [[resolver.httpdns]]
            name = "tencent-aes"
            format = "tencent"
            url = "http://192.0.2.5/d"
            bootstrap = ["192.0.2.6"]
            key_id = "123"
            alg = "aes"
            secret_file = "dnspod.key"
            """)
        #expect(providers.map(\.name) == ["doh-post", "json", "aliyun_signed", "tencent.token", "tencent-aes"])
        let doh = providers[0]
        #expect(doh.format == .doh && doh.method == .post && doh.timeoutMs == 500 && doh.caFile == "test-ca.pem")
        #expect(doh.url == HTTPDNSURL("https://doh.example/dns-query"))
        #expect(doh.bootstrap == [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!])
        #expect(providers[1] == HTTPDNSProviderSettings(
            name: "json", format: .json, url: HTTPDNSURL("https://json.example/resolve")!, bootstrap: [IPAddress("192.0.2.2")!]))
        #expect(providers[2] == HTTPDNSProviderSettings(
            name: "aliyun_signed", format: .aliyun, url: HTTPDNSURL("http://192.0.2.3")!, bootstrap: [IPAddress("192.0.2.3")!],
            accountID: "100000", secret: .environment("ALIYUN_SECRET")))
        #expect(providers[3] == HTTPDNSProviderSettings(
            name: "tencent.token", format: .tencent, url: HTTPDNSURL("https://192.0.2.4/d")!, bootstrap: [IPAddress("192.0.2.4")!],
            token: .file("/etc/ipdirect/dnspod-token")))
        #expect(providers[4] == HTTPDNSProviderSettings(
            name: "tencent-aes", format: .tencent, url: HTTPDNSURL("http://192.0.2.5/d")!, bootstrap: [IPAddress("192.0.2.6")!],
            secret: .file("dnspod.key"), keyID: "123", cipher: .aes))
    }

    @Test func defaultsTimeoutAndMethodAndTakesPlainForms() throws {
        let providers = try Self.providers("""
            [[resolver.httpdns]]
            name = "aliyun"
            format = "aliyun"
            url = "http://192.0.2.3/"
            account_id = "100000"
            [[resolver.httpdns]]
            name = "tencent"
            format = "tencent"
            url = "http://[2001:db8::4]/d"
            key_id = "7"
            alg = "des"
            secret_env = "DNSPOD_KEY"
            """)
        #expect(providers.allSatisfy { $0.timeoutMs == 2_000 && $0.method == .get && $0.caFile == nil })
        #expect(providers[0].secret == nil && providers[0].token == nil)
        #expect(providers[1].bootstrap == [IPAddress("2001:db8::4")!])
        #expect(providers[1].cipher == .des && providers[1].secret == .environment("DNSPOD_KEY"))
    }

    @Test func describesCredentialSourcesWithoutValues() {
        #expect(CredentialSource.file("/etc/ipdirect/secret").description == "file:/etc/ipdirect/secret")
        #expect(CredentialSource.environment("ALIYUN_SECRET").description == "env:ALIYUN_SECRET")
        #expect(HTTPDNSFormat.allCases.map(\.description) == ["doh", "json", "aliyun", "tencent", "dot"])
        #expect(HTTPDNSMethod.allCases.map(\.description) == ["get", "post"])
    }

    @Test func requiresNameFormatAndURLOnTheTableLine() {
        let text = """
            [[resolver.httpdns]]
            bootstrap = ["192.0.2.1"]

            [[resolver.httpdns]]
            name = "p"
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 1, message: "httpdns: [[resolver.httpdns]] has no name"),
            ConfigDiagnostic(line: 1, message: "httpdns: [[resolver.httpdns]] has no format"),
            ConfigDiagnostic(line: 1, message: "httpdns: [[resolver.httpdns]] has no url"),
            ConfigDiagnostic(line: 4, message: "httpdns: [[resolver.httpdns]] has no format"),
            ConfigDiagnostic(line: 4, message: "httpdns: [[resolver.httpdns]] has no url"),
        ])
    }

    @Test func requiresBootstrapForAHostNameAndSaysItIsNeverLookedUp() {
        #expect(Self.diagnostics(Self.table("doh", "url = \"https://doh.example/dns-query\"")) == [
            ConfigDiagnostic(line: 1, message: "httpdns: [[resolver.httpdns]] has no bootstrap: the URL's host 'doh.example' is never looked up through DNS, so list the IP addresses to reach it at"),
        ])
    }

    @Test func refusesNamesUsedTwiceButNotNamesDifferingInCase() {
        let one = "format = \"json\"\nurl = \"https://192.0.2.1/resolve\"\n"
        let text = "[[resolver.httpdns]]\nname = \"a\"\n\(one)[[resolver.httpdns]]\nname = \"A\"\n\(one)[[resolver.httpdns]]\nname = \"a\"\n\(one)"
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 10, message: "httpdns: name: 'a' names two providers (first on line 2)"),
        ])
    }

    /// A valid table but for `extra`, which starts on line 5: `[[resolver.httpdns]]`, name, format, url, extra.
    static func provider(_ format: String, url: String, _ extra: String) -> String {
        "[[resolver.httpdns]]\nname = \"p\"\nformat = \"\(format)\"\nurl = \"\(url)\"\n\(extra)"
    }

    static let dohURL = "https://192.0.2.1/dns-query"
    /// A well-formed pin: the base64 of 32 zero bytes.
    static let pin = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    @Test(arguments: [
        ("[[resolver.httpdns]]\nname = \"\"\nformat = \"doh\"\nurl = \"\(dohURL)\"", 2,
         "name: '' is not a provider name (1-64 letters, digits, '.', '_' or '-')"),
        ("[[resolver.httpdns]]\nname = \"my provider\"\nformat = \"doh\"\nurl = \"\(dohURL)\"", 2,
         "name: 'my provider' is not a provider name (1-64 letters, digits, '.', '_' or '-')"),
        ("[[resolver.httpdns]]\nname = \"\(String(repeating: "n", count: 65))\"\nformat = \"doh\"\nurl = \"\(dohURL)\"", 2,
         "name: '\(String(repeating: "n", count: 65))' is not a provider name (1-64 letters, digits, '.', '_' or '-')"),
        ("[[resolver.httpdns]]\nname = \"system\"\nformat = \"doh\"\nurl = \"\(dohURL)\"", 2,
         "name: 'system' names another resolver source; choose another provider name"),
        ("[[resolver.httpdns]]\nname = \"p\"\nformat = \"dox\"\nurl = \"\(dohURL)\"", 3,
         "format: 'dox' is not one of doh, json, aliyun, tencent, dot"),
        ("[[resolver.httpdns]]\nname = \"p\"\nformat = \"doh\"\nurl = \"ftp://192.0.2.1/dns-query\"", 4,
         "url: 'ftp://192.0.2.1/dns-query' is not an http://, https:// or tls:// URL"),
        (provider("doh", url: dohURL, "bootstrap = []"), 5, "bootstrap: must list at least one value"),
        (provider("doh", url: dohURL, "bootstrap = [\"192.0.2.1:443\"]"), 5,
         "bootstrap: '192.0.2.1:443' has a port; bootstrap addresses take none (the URL's port is used)"),
        (provider("doh", url: dohURL, "bootstrap = [\"doh.example\"]"), 5,
         "bootstrap: 'doh.example' is not an IP address (bootstrap addresses are never looked up through DNS)"),
        (provider("doh", url: dohURL, "bootstrap = [\"192.0.2.1\", \"192.0.2.1\"]"), 5,
         "bootstrap: 192.0.2.1 is listed twice (first on line 5)"),
        (provider("doh", url: dohURL, "ca_file = \"\""), 5, "ca_file: must not be empty"),
        (provider("doh", url: dohURL, "timeout_ms = 0"), 5, "timeout_ms: 0 is out of range (1-60000)"),
        (provider("doh", url: dohURL, "timeout_ms = 60001"), 5, "timeout_ms: 60001 is out of range (1-60000)"),
        (provider("doh", url: dohURL, "method = \"put\""), 5, "method: 'put' is not one of get, post"),
        (provider("doh", url: dohURL, "hots = 1"), 5, "unknown key 'hots' in [[resolver.httpdns]]"),
        (provider("doh", url: dohURL, "[resolver.httpdns.extra]\nx = 1"), 5, "unknown section [resolver.httpdns.extra]"),
        (provider("aliyun", url: "http://192.0.2.1", "account_id = \"1\"\nsecret_env = \"1KEY\""), 6,
         "secret_env: '1KEY' is not an environment variable name (letters, digits and '_', not starting with a digit)"),
        (provider("tencent", url: "http://192.0.2.1/d", "token_env = \"MY-TOKEN\""), 5,
         "token_env: 'MY-TOKEN' is not an environment variable name (letters, digits and '_', not starting with a digit)"),
        (provider("tencent", url: "http://192.0.2.1/d", "token_file = \"\""), 5, "token_file: must not be empty"),
        (provider("aliyun", url: "http://192.0.2.1", "account_id = \"1/2\""), 5,
         "account_id: '1/2' is not an ID (1-64 letters, digits, '-' or '_')"),
        (provider("tencent", url: "http://192.0.2.1/d", "key_id = \"\"\nalg = \"aes\"\nsecret_env = \"K\""), 5,
         "key_id: '' is not an ID (1-64 letters, digits, '-' or '_')"),
        (provider("tencent", url: "http://192.0.2.1/d", "key_id = \"1\"\nalg = \"3des\"\nsecret_env = \"K\""), 6,
         "alg: '3des' is not one of des, aes"),
    ] as [(String, Int, String)])
    func reportsABadValueOnItsLine(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: "httpdns: \(message)")])
    }

    @Test(arguments: [
        ("doh", "https://192.0.2.1", "url: a doh URL names the endpoint's path, such as https://192.0.2.1/dns-query"),
        ("doh", "https://192.0.2.1/", "url: a doh URL names the endpoint's path, such as https://192.0.2.1/dns-query"),
        ("json", "https://[2001:db8::1]:8443", "url: a json URL names the endpoint's path, such as https://[2001:db8::1]:8443/resolve"),
        ("tencent", "http://192.0.2.1", "url: a tencent URL names the endpoint's path, such as http://192.0.2.1/d"),
        ("aliyun", "http://192.0.2.1/d",
         "url: an aliyun URL is the service base without a path, such as http://203.107.1.1; /{account_id}/d is added to it"),
        ("aliyun", "http://192.0.2.1/?x=1",
         "url: an aliyun URL is the service base without a path, such as http://203.107.1.1; /{account_id}/d is added to it"),
    ])
    func checksTheURLPathOfEachFormat(format: String, url: String, message: String) {
        let extra = format == "aliyun" ? "account_id = \"1\"" : ""
        #expect(Self.diagnostics(Self.provider(format, url: url, extra)) == [ConfigDiagnostic(line: 4, message: "httpdns: \(message)")])
    }

    @Test(arguments: [
        // Keys a format does not take, reported on the key's line.
        ("json", "https://192.0.2.1/resolve", "method = \"get\"", 5,
         "method: only doh providers take a method (every other format is asked with GET); this one is json"),
        ("tencent", "http://192.0.2.1/d", "method = \"post\"", 5,
         "method: only doh providers take a method (every other format is asked with GET); this one is tencent"),
        ("doh", dohURL, "account_id = \"1\"", 5, "account_id: only aliyun providers take an account_id; this one is doh"),
        ("tencent", "http://192.0.2.1/d", "account_id = \"1\"", 5,
         "account_id: only aliyun providers take an account_id; this one is tencent"),
        ("aliyun", "http://192.0.2.1", "account_id = \"1\"\ntoken_env = \"T\"", 6,
         "token_env: only tencent providers take token_env; this one is aliyun"),
        ("doh", dohURL, "token_file = \"t\"", 5, "token_file: only tencent providers take token_file; this one is doh"),
        ("json", "https://192.0.2.1/resolve", "key_id = \"1\"", 5, "key_id: only tencent providers take key_id; this one is json"),
        ("aliyun", "http://192.0.2.1", "account_id = \"1\"\nalg = \"des\"", 6, "alg: only tencent providers take alg; this one is aliyun"),
        ("doh", dohURL, "secret_env = \"S\"", 5, "secret_env: doh providers take no secret"),
        ("json", "https://192.0.2.1/resolve", "secret_file = \"s\"", 5, "secret_file: json providers take no secret"),
        // Required keys and pairs, reported on the table's line when missing.
        ("aliyun", "http://192.0.2.1", "secret_env = \"S\"", 1,
         "[[resolver.httpdns]] has no account_id, which aliyun providers need"),
        ("tencent", "http://192.0.2.1/d", "key_id = \"1\"\nsecret_env = \"K\"", 5,
         "key_id: the encrypted form needs both key_id and alg; add alg"),
        ("tencent", "http://192.0.2.1/d", "alg = \"des\"\nsecret_env = \"K\"", 5,
         "alg: the encrypted form needs both key_id and alg; add key_id"),
        ("tencent", "http://192.0.2.1/d", "key_id = \"1\"\nalg = \"des\"", 1,
         "[[resolver.httpdns]] has key_id and alg but no key: name it in secret_file or secret_env"),
        ("tencent", "http://192.0.2.1/d", "secret_file = \"k\"", 5,
         "secret_file: a tencent secret is the key of the encrypted form; add key_id and alg"),
        ("tencent", "https://192.0.2.1/d", "key_id = \"1\"\nalg = \"aes\"\nsecret_env = \"K\"\ntoken_env = \"T\"", 8,
         "token_env: the token form and the encrypted form (key_id, alg) exclude each other"),
        // One source per credential.
        ("aliyun", "http://192.0.2.1", "account_id = \"1\"\nsecret_file = \"s\"\nsecret_env = \"S\"", 7,
         "secret_file and secret_env exclude each other; name one source"),
        ("tencent", "https://192.0.2.1/d", "token_env = \"T\"\ntoken_file = \"t\"", 6,
         "token_file and token_env exclude each other; name one source"),
        // TLS settings on a plain-HTTP URL.
        ("tencent", "http://192.0.2.1/d", "ca_file = \"ca.pem\"", 5, "ca_file: only https and tls URLs use a CA file; this URL is http"),
        ("aliyun", "http://192.0.2.1", "account_id = \"1\"\nspki_sha256 = [\"\(pin)\"]", 6,
         "spki_sha256: only https and tls URLs use key pins; this URL is http"),
        // DNS over TLS: a tls:// URL, and none of the HTTP formats' keys.
        ("dot", "tls://192.0.2.1", "method = \"post\"", 5,
         "method: only doh providers take a method (every other format is asked with GET); this one is dot"),
        ("dot", "tls://192.0.2.1", "token_env = \"T\"", 5, "token_env: only tencent providers take token_env; this one is dot"),
        ("dot", "tls://192.0.2.1", "secret_file = \"s\"", 5, "secret_file: dot providers take no secret"),
        ("dot", "tls://192.0.2.1", "account_id = \"1\"", 5, "account_id: only aliyun providers take an account_id; this one is dot"),
        ("dot", dohURL, "", 4,
         "url: a dot provider's URL is tls://host[:port], such as tls://192.0.2.1; only dot providers take tls:// URLs"),
        ("doh", "tls://192.0.2.1", "", 4,
         "url: a doh provider's URL is http:// or https://; only dot providers take tls:// URLs"),
    ] as [(String, String, String, Int, String)])
    func enforcesWhichKeysEachFormatTakes(format: String, url: String, extra: String, line: Int, message: String) {
        #expect(Self.diagnostics(Self.provider(format, url: url, extra)) == [ConfigDiagnostic(line: line, message: "httpdns: \(message)")])
    }

    @Test func readsADNSOverTLSProviderWithItsPinsAndDefaults() throws {
        let providers = try Self.providers(Self.table("dot", """
            url = "tls://dot.example"
            bootstrap = ["192.0.2.53"]
            spki_sha256 = ["\(Self.pin)"]
            client_subnet = "198.51.100.0/24"
            """))
        let provider = try #require(providers.first)
        #expect(provider.format == .dot)
        #expect(provider.url.isDoT && provider.url.port == 853 && provider.url.host == "dot.example")
        #expect(provider.spkiSHA256 == [Self.pin])
        #expect(provider.timeoutMs == HTTPDNSProviderSettings.defaultTimeoutMs)
        #expect(provider.clientSubnet != nil)
    }

    @Test func reportsEveryProblemOfEveryTableInLineOrder() {
        let text = """
            [[resolver.httpdns]]
            name = "a"
            format = "doh"
            url = "https://doh.example"
            method = "post"
            secret_env = "S"

            [[resolver.httpdns]]
            name = "a"
            format = "aliyun"
            url = "http://192.0.2.1/"
            timeout_ms = 0
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 1, message: "httpdns: [[resolver.httpdns]] has no bootstrap: the URL's host 'doh.example' is never looked up through DNS, so list the IP addresses to reach it at"),
            ConfigDiagnostic(line: 4, message: "httpdns: url: a doh URL names the endpoint's path, such as https://doh.example/dns-query"),
            ConfigDiagnostic(line: 6, message: "httpdns: secret_env: doh providers take no secret"),
            ConfigDiagnostic(line: 8, message: "httpdns: [[resolver.httpdns]] has no account_id, which aliyun providers need"),
            ConfigDiagnostic(line: 9, message: "httpdns: name: 'a' names two providers (first on line 2)"),
            ConfigDiagnostic(line: 12, message: "httpdns: timeout_ms: 0 is out of range (1-60000)"),
        ])
    }

    @Test(arguments: [
        ("[resolver.httpdns]\nname = \"p\"", 1, "httpdns: write each provider as a [[resolver.httpdns]] table, with double brackets"),
        ("[resolver]\nhttpdns = [\"cloudflare\"]", 2, "httpdns: expected a [[resolver.httpdns]] table, found a string"),
        ("[resolver]\nhttpdns = true", 2, "httpdns: expected [[resolver.httpdns]] tables, found a boolean"),
    ])
    func refusesProvidersNotWrittenAsTables(text: String, line: Int, message: String) {
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func readsProvidersWrittenAsInlineTables() throws {
        let providers = try Self.providers("[resolver]\nhttpdns = [{ name = \"p\", format = \"json\", url = \"https://192.0.2.1/resolve\" }]")
        #expect(providers.map(\.name) == ["p"])
    }

    @Test func treatsResolverKeysAfterAProviderAsPartOfIt() {
        let text = Self.provider("doh", url: Self.dohURL, "compare_system = true")
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 5, message: "httpdns: unknown key 'compare_system' in [[resolver.httpdns]]"),
        ])
    }
}

/// `domains` and `client_subnet`: what they read into and what they refuse, on the key's line.
extension HTTPDNSProviderSettingsTests {
    @Test func readsDomainsAndClientSubnet() throws {
        let read = try Self.providers(Self.provider("tencent", url: "http://192.0.2.1/d",
                                                    "domains = [\"*.cn.example\", \"api.example.org\"]\nclient_subnet = \"203.0.113.0/24\""))
        #expect(read.count == 1)
        #expect(read[0].domains == [HostPattern("*.cn.example")!, HostPattern("api.example.org")!])
        #expect(read[0].isDomainLimited)
        #expect(read[0].clientSubnet == ClientSubnet("203.0.113.0/24"))
        let plain = try Self.providers(Self.provider("doh", url: Self.dohURL, ""))
        #expect(plain[0].domains.isEmpty && !plain[0].isDomainLimited && plain[0].clientSubnet == nil)
        let everywhere = try Self.providers(Self.provider("json", url: "https://192.0.2.1/resolve",
                                                          "client_subnet = \"::/0\""))
        #expect(everywhere[0].clientSubnet == ClientSubnet("::/0"))
    }

    @Test(arguments: [
        ("doh", dohURL, "domains = []", 5, "domains: must list at least one value"),
        ("doh", dohURL, "domains = [\"*.cn.example:443\"]", 5, "domains: '*.cn.example:443': name hosts without a port"),
        ("doh", dohURL, "domains = [\"a.*.example\"]", 5,
         "domains: 'a.*.example': a wildcard must be the whole first label, as in *.example.net"),
        ("doh", dohURL, "domains = [\"192.0.2.7\"]", 5, "domains: '192.0.2.7' is an IP address; rules name hosts"),
        ("doh", dohURL, "domains = \"*.cn.example\"", 5, "domains: expected an array, found a string"),
        ("doh", dohURL, "client_subnet = \"203.0.113.7/24\"", 5,
         "client_subnet: '203.0.113.7/24' has host bits set past /24; write the network, 203.0.113.0/24"),
        ("json", "https://192.0.2.1/resolve", "client_subnet = \"203.0.113.0/40\"", 5,
         "client_subnet: '203.0.113.0/40': '40' is not a prefix length of an IPv4 address (0-32)"),
        ("doh", dohURL, "client_subnet = \"203.0.113.0\"", 5,
         "client_subnet: '203.0.113.0' has no prefix length; write a network such as 203.0.113.0/24 or 2001:db8::/56"),
        ("doh", dohURL, "client_subnet = 24", 5, "client_subnet: expected a string, found an integer"),
        ("tencent", "http://192.0.2.1/d", "client_subnet = \"0.0.0.0/0\"", 5,
         "client_subnet: tencent providers take an address as ip=, which cannot say /0; only doh and json providers can be told to use no client address"),
        ("aliyun", "http://192.0.2.1", "account_id = \"1\"\nclient_subnet = \"::/0\"", 6,
         "client_subnet: aliyun providers take an address as ip=, which cannot say /0; only doh and json providers can be told to use no client address"),
    ] as [(String, String, String, Int, String)])
    func refusesBadDomainsAndSubnetsOnTheirLine(format: String, url: String, extra: String, line: Int, message: String) {
        #expect(Self.diagnostics(Self.provider(format, url: url, extra)) == [ConfigDiagnostic(line: line, message: "httpdns: \(message)")])
    }
}
