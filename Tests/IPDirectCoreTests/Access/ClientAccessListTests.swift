import Testing
@testable import IPDirectCore

/// `[access] clients`: which client addresses the proxy serves.
@Suite struct ClientAccessListTests {
    /// Each client address against each list, as the proxy sees a connection's peer.
    @Test(arguments: [
        ("192.168.1.0/24", "192.168.1.1", true),
        ("192.168.1.0/24", "192.168.1.255", true),
        ("192.168.1.0/24", "192.168.2.1", false),
        ("192.168.1.0/24", "::ffff:192.168.1.9", true),
        ("192.168.1.0/24", "::ffff:192.168.2.9", false),
        ("192.168.1.0/24", "::192.168.1.9", false),
        ("192.168.1.0/24", "2001:db8::1", false),
        ("10.1.2.3", "10.1.2.3", true),
        ("10.1.2.3", "10.1.2.4", false),
        ("0.0.0.0/0", "203.0.113.5", true),
        ("0.0.0.0/0", "::1", false),
        ("::/0", "::ffff:203.0.113.5", false),
        ("::/0", "2001:db8::1", true),
        ("2001:db8::/32", "2001:db8:ffff::1", true),
        ("2001:db8::/32", "2001:db9::1", false),
        ("fe80::/10", "febf::1", true),
        ("fe80::/10", "fec0::1", false),
        ("::1", "::1", true),
        ("::1", "127.0.0.1", false),
        ("::ffff:10.0.0.0/104", "10.200.0.1", true),
        ("::ffff:10.0.0.0/104", "::ffff:10.200.0.1", true),
        ("::ffff:10.0.0.0/104", "11.0.0.1", false),
    ])
    func permitsExactlyTheAddressesInsideItsPrefixes(prefix: String, client: String, permitted: Bool) throws {
        let list = ClientAccessList([try #require(IPPrefix(prefix))])
        #expect(list.permits(try #require(IPAddress(client))) == permitted)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("10.9.8.7", true), ("100.64.0.1", true), ("100.127.255.255", true), ("169.254.1.1", true),
        ("172.16.0.1", true), ("172.31.255.255", true), ("192.168.0.1", true),
        ("fd00::1", true), ("fc00::1", true), ("fe80::1", true), ("::ffff:192.168.0.1", true),
        ("8.8.8.8", false), ("100.128.0.1", false), ("172.32.0.1", false), ("192.0.2.1", false),
        ("2001:db8::1", false), ("::", false), ("::ffff:8.8.8.8", false),
    ])
    func servesLoopbackAndThePrivateNetworksByDefault(client: String, permitted: Bool) throws {
        #expect(ClientAccessList.localNetworks.permits(try #require(IPAddress(client))) == permitted)
    }

    @Test func aListInsideTheDefaultAndSmallerThanItIsNarrower() throws {
        let lan = ClientAccessList([try #require(IPPrefix("192.168.1.0/24")), try #require(IPPrefix("::1"))])
        #expect(lan.isNarrower(than: .localNetworks))
        let loopback = ClientAccessList([try #require(IPPrefix("127.0.0.0/8"))])
        #expect(loopback.isNarrower(than: .localNetworks))
    }

    @Test func theDefaultAndListsReachingBeyondItAreNotNarrower() throws {
        #expect(!ClientAccessList.localNetworks.isNarrower(than: .localNetworks))
        let everyone = ClientAccessList([try #require(IPPrefix("0.0.0.0/0"))])
        #expect(!everyone.isNarrower(than: .localNetworks))
        let publicBlock = ClientAccessList([try #require(IPPrefix("203.0.113.0/24"))])
        #expect(!publicBlock.isNarrower(than: .localNetworks))
        let spanning = ClientAccessList([try #require(IPPrefix("10.0.0.0/7"))])
        #expect(!spanning.isNarrower(than: .localNetworks))
    }
}
