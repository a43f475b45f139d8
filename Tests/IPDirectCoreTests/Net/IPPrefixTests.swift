import Testing
@testable import IPDirectCore

/// CIDR prefixes as `[access] clients` writes them.
@Suite struct IPPrefixTests {
    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("192.168.1.7", "192.168.1.7/32"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("::1", "::1/128"),
        ("fc00::/7", "fc00::/7"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("::/0", "::/0"),
        ("::ffff:10.0.0.0/104", "10.0.0.0/8"),
        ("::ffff:192.0.2.1", "192.0.2.1/32"),
    ])
    func readsPrefixesAndBareAddressesInTheirCanonicalForm(text: String, canonical: String) throws {
        let prefix = try IPPrefix.parse(text).get()
        #expect(prefix.description == canonical)
    }

    @Test(arguments: [
        ("localhost", "'localhost' is not an address or a prefix such as 192.168.0.0/16 or fd00::/8"),
        ("10.0.0.0/", "'10.0.0.0/' is not an address or a prefix such as 192.168.0.0/16 or fd00::/8"),
        ("10.0.0.0/+8", "'10.0.0.0/+8' is not an address or a prefix such as 192.168.0.0/16 or fd00::/8"),
        ("10.0.0.0/8/8", "'10.0.0.0/8/8' is not an address or a prefix such as 192.168.0.0/16 or fd00::/8"),
        ("10.0.0.0/33", "'10.0.0.0/33': the prefix length must be 0-32"),
        ("fc00::/129", "'fc00::/129': the prefix length must be 0-128"),
        ("192.168.1.5/24", "'192.168.1.5/24' has bits set past the prefix length; the network is 192.168.1.0/24"),
        ("fd12:3456::1/16", "'fd12:3456::1/16' has bits set past the prefix length; the network is fd12::/16"),
    ])
    func refusesWhatIsNotAPrefixSayingWhy(text: String, message: String) {
        guard case .failure(let error) = IPPrefix.parse(text) else {
            Issue.record("'\(text)' was accepted")
            return
        }
        #expect(error.description == message)
        #expect(IPPrefix(text) == nil)
    }

    @Test func coversOnlyBlocksInsideItself() throws {
        let private10 = try #require(IPPrefix("10.0.0.0/8"))
        #expect(private10.covers(try #require(IPPrefix("10.1.0.0/16"))))
        #expect(private10.covers(private10))
        #expect(!private10.covers(try #require(IPPrefix("10.0.0.0/7"))))
        #expect(!private10.covers(try #require(IPPrefix("11.0.0.0/16"))))
        #expect(!private10.covers(try #require(IPPrefix("::a00:0/104"))))
    }
}
