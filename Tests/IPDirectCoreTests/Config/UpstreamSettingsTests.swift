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

/// The address-selection keys of `[upstream]`.
@Suite struct UpstreamSelectionSettingsTests {
    @Test func defaultsFollowRFC8305AndTheIssueOfQuarantine() throws {
        let upstream = try UpstreamSettingsTests.upstream("")
        #expect(upstream.connectionAttemptDelayMs == 250)
        #expect(upstream.balance == .fastest)
        #expect(upstream.quarantineMs == 10_000)
        #expect(upstream.quarantineMaxMs == 300_000)
    }

    @Test func readsModesRulesAndProbes() throws {
        let upstream = try UpstreamSettingsTests.upstream("""
        [upstream]
        connection_attempt_delay = 100
        balance = "spread"
        quarantine = 1
        quarantine_max = 4

        [[upstream.balance_rule]]
        hosts = ["*.load.test", "one.test"]
        balance = "sticky"

        [[upstream.probe]]
        hosts = ["*.ranked.test"]
        port = 443
        """)
        #expect(upstream.connectionAttemptDelayMs == 100)
        #expect(upstream.balanceMode(for: "a.load.test") == .sticky)
        #expect(upstream.balanceMode(for: "one.test") == .sticky)
        #expect(upstream.balanceMode(for: "other.test") == .spread)
        #expect(upstream.probePort(for: "x.ranked.test") == 443)
        #expect(upstream.probePort(for: "ranked.test") == nil)
        #expect(upstream.healthSettings.quarantineMicros == 1_000_000)
        #expect(upstream.healthSettings.attemptDelayMicros == 100_000)
    }

    @Test(arguments: [
        ("[upstream]\nconnection_attempt_delay = 5", "connection_attempt_delay: 5 is out of range (10-5000)"),
        ("[upstream]\nbalance = \"random\"", "balance: 'random' is not one of fastest, spread, sticky"),
        ("[upstream]\nquarantine = 20\nquarantine_max = 10", "quarantine_max must not be less than quarantine"),
        ("[[upstream.probe]]\nhosts = [\"a.test\"]", "[[upstream.probe]] has no port"),
        ("[[upstream.balance_rule]]\nhosts = [\"a.test\"]\nbalance = \"spread\"\nport = 1", "unknown key 'port' in [[upstream.balance_rule]]"),
        ("[[upstream.balance_rule]]\nhosts = []\nbalance = \"spread\"", "hosts must list at least one host"),
    ])
    func refusesBadSelectionKeys(text: String, message: String) {
        let found = UpstreamSettingsTests.diagnostics(text).map(\.message)
        #expect(found.contains { $0.contains(message) }, "\(found)")
    }
}
