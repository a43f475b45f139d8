import Testing
@testable import IPDirectCore

/// The `[dns]` section: off by default, every key checked, and no listener that the system source would ask.
@Suite struct DNSSettingsTests {
    static func diagnostics(_ text: String) -> [String] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics.map(\.message)
    }

    @Test func theListenerIsOffByDefault() {
        #expect(Config.defaults.dns.listen.isEmpty)
        #expect(Config.defaults.dns.maxTTLSeconds == 60 && Config.defaults.dns.udpPayloadSize == 1232)
    }

    @Test func readsEveryKey() throws {
        let text = """
        [dns]
        listen = ["127.0.0.1:5353", "[::1]:5353"]
        max_ttl = 120
        stale_ttl = 5
        hosts_ttl = 0
        negative_ttl = 15
        max_addresses = 1
        rank_port = 8443
        udp_payload = 4096
        firefox_canary = false
        query_log_level = "info"
        forward = ["192.0.2.53", "[2001:db8::53]:5353"]
        other_types = "refuse"
        https_records = "forward"
        """
        let dns = try Config.parse(text).get().dns
        #expect(dns.listen.map(\.description) == ["127.0.0.1:5353", "[::1]:5353"])
        #expect(dns.maxTTLSeconds == 120 && dns.staleTTLSeconds == 5 && dns.hostsTTLSeconds == 0)
        #expect(dns.negativeTTLSeconds == 15 && dns.maxAddresses == 1 && dns.rankPort == 8443)
        #expect(dns.udpPayloadSize == 4096 && !dns.firefoxCanary && dns.queryLogLevel == .info)
        #expect(dns.forward.map(\.description) == ["192.0.2.53:53", "[2001:db8::53]:5353"])
        #expect(dns.otherTypes == .refuse && dns.httpsRecords == .forward)
    }

    @Test func forwardsNothingAndRelaysOtherTypesWithoutHintsByDefault() {
        #expect(Config.defaults.dns.forward.isEmpty)
        #expect(Config.defaults.dns.otherTypes == .forward && Config.defaults.dns.httpsRecords == .stripHints)
    }

    @Test func refusesValuesOutOfRange() {
        let table = ["max_ttl = 0", "udp_payload = 511", "udp_payload = 4097", "max_addresses = 65", "rank_port = 0",
                     "query_log_level = \"loud\"", "listen = \"127.0.0.1\"",
                     "forward = [\"printer.lan\"]", "forward = [\"192.0.2.1:0\"]", "other_types = \"drop\"",
                     "https_records = \"strip\""]
        for line in table {
            #expect(!Self.diagnostics("[dns]\n\(line)\n").isEmpty, "\(line)")
        }
    }

    @Test func aListenerTheSystemSourceWouldAskIsALoop() {
        let text = """
        [dns]
        listen = ["127.0.0.1:5353"]
        [resolver]
        system_nameservers = ["127.0.0.1:5353"]
        """
        #expect(Self.diagnostics(text) == [
            "listen: 127.0.0.1:5353 is also in [resolver] system_nameservers; the system source would ask ipdirect itself (a loop)",
        ])
        #expect(Self.diagnostics("[dns]\nlisten = [\"127.0.0.1:5353\"]\n[resolver]\nsystem_nameservers = [\"127.0.0.1:5354\"]\n").isEmpty)
    }

    @Test func aForwardServerThatIsThisListenerIsALoop() {
        let table: [(listen: String, forward: String, loops: Bool)] = [
            ("127.0.0.1:53", "127.0.0.1", true),
            ("0.0.0.0:53", "127.0.0.1:53", true),
            ("[::]:5353", "[::1]:5353", true),
            ("127.0.0.1:5353", "127.0.0.1", false),
            ("0.0.0.0:53", "[::1]:53", false),
        ]
        for row in table {
            let text = "[dns]\nlisten = [\"\(row.listen)\"]\nforward = [\"\(row.forward)\"]\n"
            #expect(Self.diagnostics(text).contains { $0.contains("is also in forward") } == row.loops, "\(row)")
        }
    }
}
