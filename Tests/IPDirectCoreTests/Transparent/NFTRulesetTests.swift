import Testing
@testable import IPDirectCore

/// The printed table redirects what the configuration says, exempts ipdirect's own user, and never redirects
/// this machine's own or the `direct` destinations.
@Suite struct NFTRulesetTests {
    static func config(_ text: String) throws -> Config {
        try Config.parse(text).get()
    }

    @Test func nothingIsPrintedWhileTransparentModeIsOff() throws {
        #expect(NFTRuleset(config: Config()).text(source: "test") == nil)
    }

    @Test func localProgramsAreRedirectedToTheListenPortButIpdirectsOwnUser() throws {
        let config = try Self.config("[transparent]\nlisten = [\"127.0.0.1:8443\", \"[::1]:8443\"]\n")
        let text = try #require(NFTRuleset(config: config).text(source: "test.toml"))
        let lines = text.split(separator: "\n").map { String($0.drop { $0 == "\t" }) }
        let output = try #require(lines.firstIndex(of: "chain output {"))
        let order = ["meta skuid \"ipdirect\" return", "fib daddr type local return", "ip daddr @direct4 return",
                     "ip6 daddr @direct6 return", "tcp dport { 80, 443 } redirect to :8443"]
        let positions = order.map { rule in lines[output...].firstIndex(of: rule) }
        #expect(!positions.contains(nil), "a rule is missing from the output chain:\n\(text)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "out of order:\n\(text)")
        #expect(!text.contains("prerouting") && !text.contains("udp dport"))
        // Made, deleted and made again in one `nft -f` transaction: loading twice is loading once.
        #expect(text.contains("table inet ipdirect\ndelete table inet ipdirect\ntable inet ipdirect {\n"))
    }

    @Test func theDirectBlocksAreSetsByFamily() throws {
        let config = try Self.config("[transparent]\nlisten = \"0.0.0.0:8443\"\ndirect = [\"10.0.0.0/8\", \"fd00::/8\"]\n")
        let text = try #require(NFTRuleset(config: config).text(source: "test"))
        #expect(text.contains("set direct4 {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\tauto-merge\n\t\telements = { 10.0.0.0/8 }\n\t}"))
        #expect(text.contains("set direct6 {\n\t\ttype ipv6_addr\n\t\tflags interval\n\t\tauto-merge\n\t\telements = { fd00::/8 }\n\t}"))
    }

    @Test func theDefaultDirectBlocksAreTheNonPublicOnes() {
        for prefix in TransparentSettings.nonPublicBlocks {
            #expect(prefix.network.isNonPublic, "\(prefix) is public")
        }
        for address in ["10.1.2.3", "192.168.1.1", "127.0.0.1", "::1", "fe80::1", "224.0.0.1"] {
            let ip = IPAddress(address)!
            #expect(TransparentSettings.nonPublicBlocks.contains { $0.contains(ip) }, "\(address) would be redirected")
        }
        #expect(!TransparentSettings.nonPublicBlocks.contains { $0.contains(IPAddress("203.0.113.7")!) })
    }

    @Test func interfacesAddAPreroutingChainAndTheOptionsTheirRules() throws {
        let config = try Self.config("""
            [dns]
            listen = "0.0.0.0:5353"
            [transparent]
            listen = ["0.0.0.0:8443", "[::]:8443"]
            interfaces = ["veth1", "docker0"]
            ports = [80, 443, 8080]
            exempt_user = "993"
            redirect_dns = true
            reject_quic = true
            """)
        let text = try #require(NFTRuleset(config: config).text(source: "test"))
        #expect(text.contains("chain prerouting {\n\t\ttype nat hook prerouting priority -100; policy accept;\n\t\tiifname != { \"veth1\", \"docker0\" } return"))
        #expect(text.contains("tcp dport { 80, 443, 8080 } redirect to :8443"))
        #expect(text.contains("meta skuid 993 return"), "a numeric uid is not quoted")
        #expect(text.contains("\tmeta nfproto ipv4 udp dport 53 redirect to :5353")
                && text.contains("\tmeta nfproto ipv4 tcp dport 53 redirect to :5353"), "the DNS listener has IPv4 only:\n\(text)")
        #expect(text.contains("udp dport 443 reject") && text.contains("iifname { \"veth1\", \"docker0\" } udp dport 443 reject"))
    }

    @Test func aFamilyNothingListensForIsNotRedirectedToAClosedPort() throws {
        let v4 = try Self.config("[transparent]\nlisten = \"127.0.0.1:8443\"\n")
        let text = try #require(NFTRuleset(config: v4).text(source: "test"))
        #expect(text.contains("\t\tmeta nfproto ipv4 tcp dport { 80, 443 } redirect to :8443\n"), "\(text)")
        #expect(!text.contains("ipv6 tcp dport"))
        let v6 = try Self.config("[transparent]\nlisten = \"[::]:8443\"\n")
        #expect(try #require(NFTRuleset(config: v6).text(source: "test")).contains("\t\tmeta nfproto ipv6 tcp dport { 80, 443 } redirect to :8443\n"))
    }

    @Test func aLoopbackListenerTakesNoConnectionFromAnInterface() {
        let listen = [SocketAddress(ip: IPAddress("127.0.0.1")!, port: 8443), SocketAddress(ip: IPAddress("::")!, port: 8443)]
        let local = NFTRuleset.ports(of: listen, arrival: .loopback)
        let forwarded = NFTRuleset.ports(of: listen, arrival: .interface)
        #expect(local.v4 == 8443 && local.v6 == 8443)
        #expect(forwarded.v4 == nil && forwarded.v6 == 8443)
    }
}
