import Testing
@testable import IPDirectCore

/// IPv6 forms that reach an IPv4 address, and the IPv6 ranges that stay inside a site, are not public:
/// a name answering with one of them must not lead the proxy into a private network.
@Suite struct NonPublicIPv6RangesTests {
    @Test(arguments: [
        // IPv4-compatible ::/96 (deprecated), judged by the IPv4 address it carries.
        ("::10.0.0.1", true), ("::127.0.0.1", true), ("::192.168.1.1", true), ("::8.8.8.8", false),
        // IPv4-translated ::ffff:0:0:0/96 (SIIT), judged the same way.
        ("::ffff:0:10.0.0.1", true), ("::ffff:0:127.0.0.1", true), ("::ffff:0:8.8.8.8", false),
        // Well-known NAT64 prefix 64:ff9b::/96.
        ("64:ff9b::10.0.0.1", true), ("64:ff9b::127.0.0.1", true), ("64:ff9b::a9fe:a9fe", true),
        ("64:ff9b::8.8.8.8", false), ("64:ff9b::203.0.113.7", false),
        // 6to4 2002::/16: the IPv4 address is in bits 16..47.
        ("2002:0a00:0001::", true), ("2002:7f00:1::1", true), ("2002:c0a8:101::1", true),
        ("2002:0808:0808::1", false),
        // Site-local fec0::/10 (deprecated, still routed inside sites).
        ("fec0::1", true), ("feff:ffff::1", true),
        // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): whatever it carries, it is a site's own translator.
        ("64:ff9b:1::8.8.8.8", true), ("64:ff9b:1:ffff::1", true),
        // Near misses that stay public.
        ("64:ff9b:2::8.8.8.8", false), ("64:ff9b::1:0:0", false), ("2003::1", false), ("fe00::1", false),
    ])
    func ipv6FormsAreJudgedByWhereTheyLead(input: String, nonPublic: Bool) {
        #expect(IPAddress(input)!.isNonPublic == nonPublic, "\(input)")
    }
}
