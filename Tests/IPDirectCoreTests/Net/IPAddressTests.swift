import Testing
@testable import IPDirectCore

@Suite struct IPAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("::", "::"),
        ("2001:db8:0:0:0:0:2:1", "2001:db8::2:1"), ("2001:DB8::1", "2001:db8::1"),
        ("::ffff:192.0.2.1", "::ffff:c000:201"), ("fe80::1:0:0:1", "fe80::1:0:0:1"),
    ])
    func parsesAndPrintsCanonically(input: String, expected: String) {
        #expect(IPAddress(input)?.description == expected)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", "::1::", "1:2:3:4:5:6:7:8:9",
                      "12345::", "g::1", "1.2.3.4 ", "[::1]", "fe80::1%eth0"])
    func rejectsMalformedText(input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test(arguments: ["127.0.0.1", "::1", "2001:DB8::1", "::ffff:192.0.2.1", "1.2.3", "[::1]"])
    func textThatMayBeALiteralIsNotSkipped(input: String) {
        #expect(IPAddress.mayBeLiteral(input))
    }

    @Test(arguments: ["example.com", "a1.example", "1.2.3.4x", "localhost", ""])
    func namesAreToldApartWithoutParsing(input: String) {
        #expect(!IPAddress.mayBeLiteral(input) || input.isEmpty)
        #expect(IPAddress(input) == nil)
    }

    @Test(arguments: [
        ("10.1.2.3", true), ("172.31.0.1", true), ("172.32.0.1", false), ("192.168.9.9", true),
        ("127.0.0.1", true), ("169.254.1.1", true), ("0.0.0.0", true), ("100.64.0.1", true),
        ("8.8.8.8", false), ("203.0.113.7", false), ("::1", true), ("::", true), ("fd00::1", true),
        ("fe80::1", true), ("2606:4700::1111", false), ("::ffff:10.0.0.1", true), ("::ffff:8.8.8.8", false),
    ])
    func classifiesNonPublicAddresses(input: String, nonPublic: Bool) {
        #expect(IPAddress(input)!.isNonPublic == nonPublic)
    }
}
