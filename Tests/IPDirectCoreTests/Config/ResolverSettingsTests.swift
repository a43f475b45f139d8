import Testing
@testable import IPDirectCore

/// The `[resolver]` keys of the cache, bypass, warm-up and hijack detection, and the built-in configuration.
@Suite struct ResolverSettingsTests {
    static func resolver(_ text: String) throws -> ResolverSettings {
        try Config.parse(text).get().resolver
    }

    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    @Test func defaultsHaveNoProvidersAndTheCacheDefaults() {
        let resolver = Config.defaults.resolver
        #expect(resolver.httpdns.isEmpty)
        #expect(resolver.bypass.isEmpty)
        #expect(resolver.cache == ResolverCacheSettings())
        #expect(resolver.cache.minTTL == 30 && resolver.cache.maxTTL == 86_400 && resolver.cache.negativeTTL == 30)
        #expect(resolver.cache.serveStale == 86_400 && resolver.cache.maxEntries == 10_000)
        #expect(resolver.preresolve.isEmpty)
        #expect(resolver.cacheFile == nil)
        #expect(resolver.cacheWriteIntervalSeconds == 300)
        #expect(resolver.compareSystem == false)
    }

    @Test func fileWithoutProviderTablesHasNoProviders() throws {
        #expect(try Self.resolver("[resolver]\norder = [\"hosts\", \"httpdns\", \"system\"]").httpdns.isEmpty)
    }

    @Test func builtInIsTheDefaultsWithCloudflareThenGoogle() {
        var withoutProviders = Config.builtIn
        withoutProviders.resolver.httpdns = []
        #expect(withoutProviders == Config.defaults)
        let providers = Config.builtIn.resolver.httpdns
        #expect(providers.map(\.name) == ["cloudflare", "google"])
        #expect(providers.allSatisfy { $0.format == .doh && $0.method == .get && $0.url.isHTTPS && $0.url.port == 443 })
        #expect(providers.allSatisfy { $0.timeoutMs == 2_000 && $0.caFile == nil && $0.secret == nil && $0.token == nil })
        #expect(providers.map(\.url.description) == ["https://cloudflare-dns.com/dns-query", "https://dns.google/dns-query"])
        #expect(providers[0].bootstrap.map(\.description) == ["1.1.1.1", "1.0.0.1", "2606:4700:4700::1111", "2606:4700:4700::1001"])
        #expect(providers[1].bootstrap.map(\.description) == ["8.8.8.8", "8.8.4.4", "2001:4860:4860::8888", "2001:4860:4860::8844"])
    }

    @Test func readsEveryCacheAndResolverKey() throws {
        let resolver = try Self.resolver("""
            [resolver]
            bypass = ["*.local", "Intranet.Example."]
            min_ttl = 0
            max_ttl = 3600
            negative_ttl = 5
            serve_stale = 0
            max_entries = 500
            preresolve = ["WWW.Example.com.", "api.example.net"]
            cache_file = "/var/cache/ipdirect/resolver.cache"
            cache_write_interval = 60
            compare_system = true
            """)
        #expect(resolver.bypass == [HostPattern("*.local")!, HostPattern("intranet.example")!])
        #expect(resolver.bypass[0].matches("printer.local") && !resolver.bypass[0].matches("local"))
        #expect(resolver.cache == ResolverCacheSettings(minTTL: 0, maxTTL: 3_600, negativeTTL: 5, serveStale: 0, maxEntries: 500))
        #expect(resolver.preresolve == ["www.example.com", "api.example.net"])
        #expect(resolver.cacheFile == "/var/cache/ipdirect/resolver.cache")
        #expect(resolver.cacheWriteIntervalSeconds == 60)
        #expect(resolver.compareSystem)
    }

    @Test func acceptsEqualMinimumAndMaximumTTL() throws {
        let cache = try Self.resolver("[resolver]\nmin_ttl = 600\nmax_ttl = 600").cache
        #expect(cache.minTTL == 600 && cache.maxTTL == 600)
    }

    @Test(arguments: [
        ("min_ttl = 600\nmax_ttl = 300", 3, "max_ttl: 300 is less than min_ttl (600 on line 2)"),
        ("max_ttl = 300\nmin_ttl = 600", 2, "max_ttl: 300 is less than min_ttl (600 on line 3)"),
        ("max_ttl = 10", 2, "max_ttl: 10 is less than min_ttl (30, the default)"),
        ("min_ttl = 100000", 2, "min_ttl: 100000 is more than max_ttl (86400, the default)"),
    ])
    func refusesAMinimumTTLAboveTheMaximum(keys: String, line: Int, message: String) {
        #expect(Self.diagnostics("[resolver]\n\(keys)") == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func reportsOnlyTheRefusedValueWhenATTLIsOutOfRange() {
        #expect(Self.diagnostics("[resolver]\nmin_ttl = 600\nmax_ttl = 0") == [
            ConfigDiagnostic(line: 3, message: "max_ttl: 0 is out of range (1-2147483647)"),
        ])
    }

    @Test(arguments: [
        ("min_ttl = -1", "min_ttl: -1 is out of range (0-2147483647)"),
        ("negative_ttl = 2147483648", "negative_ttl: 2147483648 is out of range (0-2147483647)"),
        ("serve_stale = 1.5", "serve_stale: expected an integer, found a float"),
        ("max_entries = 0", "max_entries: 0 is out of range (1-10000000)"),
        ("max_entries = 10000001", "max_entries: 10000001 is out of range (1-10000000)"),
        ("cache_write_interval = 9", "cache_write_interval: 9 is out of range (10-86400)"),
        ("cache_write_interval = 86401", "cache_write_interval: 86401 is out of range (10-86400)"),
        ("cache_file = \"\"", "cache_file: must not be empty"),
        ("compare_system = \"yes\"", "compare_system: expected true or false, found a string"),
        ("bypass = [\"*.local:53\"]", "bypass: '*.local:53': name hosts without a port"),
        ("bypass = [\"10.0.0.1\"]", "bypass: '10.0.0.1' is an IP address; rules name hosts"),
        ("bypass = [\"*.local\", \"*.LOCAL\"]", "bypass: *.local is listed twice (first on line 2)"),
        ("bypass = \"*.local\"", "bypass: expected an array, found a string"),
        ("preresolve = [\"*.example.com\"]", "preresolve: '*.example.com': wildcards are not allowed here; name each host"),
        ("preresolve = [\"192.0.2.1\"]", "preresolve: '192.0.2.1' is an IP address, not a host name"),
        ("preresolve = [\"a.example\", \"A.example.\"]", "preresolve: a.example is listed twice (first on line 2)"),
    ])
    func refusesBadResolverValuesOnTheirLine(keys: String, message: String) {
        #expect(Self.diagnostics("[resolver]\n\(keys)") == [ConfigDiagnostic(line: 2, message: message)])
    }

    @Test func reportsEveryProblemOfTheSectionInLineOrder() {
        let text = """
            [resolver]
            max_entries = 0
            bypass = [
              "ok.example",
              "bad_name.example",
            ]
            cache_write_interval = 1
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 2, message: "max_entries: 0 is out of range (1-10000000)"),
            ConfigDiagnostic(line: 5, message: "bypass: 'bad_name.example' is not a host name: only letters, digits, hyphens and dots are allowed"),
            ConfigDiagnostic(line: 7, message: "cache_write_interval: 1 is out of range (10-86400)"),
        ])
    }

    @Test func keepsHTTPDNSInTheOrderWithoutProviders() throws {
        let resolver = try Self.resolver("[resolver]\norder = [\"httpdns\", \"system\"]")
        #expect(resolver.order == [.httpdns, .system])
        #expect(resolver.httpdns.isEmpty)
    }
}
