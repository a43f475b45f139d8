import Testing
@testable import IPDirectCore

/// The `[upstream]` section: `https_upgrade` rules as read from a file and as the proxy asks them.
@Suite struct UpstreamSettingsTests {
    static func upstream(_ text: String) throws -> UpstreamSettings {
        try Config.parse(text).get().upstream
    }

    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    @Test func upgradesNothingByDefault() {
        #expect(UpstreamSettings().httpsUpgradePort(for: "api.example.com") == nil)
        #expect(Config.defaults.upstream.httpsUpgrade.isEmpty)
    }

    @Test(arguments: [
        ("api.example.com", 443),
        ("www.api.example.com", nil),
        ("a.example.net", 443),
        ("deep.a.example.net", 443),
        ("example.net", nil),
        ("plain.example.org", 8443),
        ("other.example.org", nil),
    ] as [(String, UInt16?)])
    func upgradesMatchingHostsToPort443UnlessTheRuleNamesAPort(host: String, port: UInt16?) throws {
        let upstream = try Self.upstream("""
            [upstream]
            https_upgrade = ["api.example.com", "*.example.net", "plain.example.org:8443"]
            """)
        #expect(upstream.httpsUpgradePort(for: host) == port)
    }

    @Test func theFirstMatchingRuleDecidesThePort() throws {
        let upstream = try Self.upstream("""
            [upstream]
            https_upgrade = ["special.example.net:9443", "*.example.net:8443", "example.net"]
            """)
        #expect(upstream.httpsUpgradePort(for: "special.example.net") == 9443)
        #expect(upstream.httpsUpgradePort(for: "other.example.net") == 8443)
        #expect(upstream.httpsUpgradePort(for: "example.net") == 443)
    }

    @Test func keepsRulesInTheOrderWritten() throws {
        let upstream = try Self.upstream("[upstream]\nhttps_upgrade = [\"b.example\", \"*.a.example\", \"A.Example.:8443\"]")
        #expect(upstream.httpsUpgrade == [HostPattern("b.example")!, HostPattern("*.a.example")!, HostPattern("a.example:8443")!])
    }

    @Test func refusesARuleThatAnEarlierRuleAlwaysMatchesFirst() {
        let text = """
            [upstream]
            https_upgrade = [
              "*.example.net",
              "api.example.net:8443",
              "*.eu.example.net",
              "example.net",
            ]
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "https_upgrade: 'api.example.net:8443' never applies: '*.example.net' on line 3 matches it first"),
            ConfigDiagnostic(line: 5, message: "https_upgrade: '*.eu.example.net' never applies: '*.example.net' on line 3 matches it first"),
        ])
    }

    @Test func refusesTheSameRuleTwiceWhateverItsSpelling() {
        let text = "[upstream]\nhttps_upgrade = [\n  \"api.example.com\",\n  \"API.example.com.\",\n]"
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "https_upgrade: 'api.example.com' is listed twice (first on line 3)"),
        ])
    }

    @Test func reportsEveryBadRuleOnItsOwnLine() {
        let text = """
            [upstream]
            https_upgrade = [
              "api.example.com",
              "192.0.2.1",
              "ok.example.com:99999",
              "*example.net",
            ]
            """
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "https_upgrade: '192.0.2.1' is an IP address; rules name hosts"),
            ConfigDiagnostic(line: 5, message: "https_upgrade: 'ok.example.com:99999': '99999' is not a port (1-65535)"),
            ConfigDiagnostic(line: 6, message: "https_upgrade: '*example.net': a wildcard must be the whole first label, as in *.example.net"),
        ])
    }
}
