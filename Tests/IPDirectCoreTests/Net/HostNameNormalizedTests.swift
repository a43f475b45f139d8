import Testing
@testable import IPDirectCore

/// The one form names are compared and looked up by: ASCII letters lower-cased, one trailing dot dropped,
/// nothing else changed; a name already in that form comes back as it is.
@Suite struct HostNameNormalizedTests {
    @Test(arguments: [
        ("example.test", "example.test"),
        ("Example.TEST", "example.test"),
        ("example.test.", "example.test"),
        ("WWW.Example.Test.", "www.example.test"),
        ("xn--bcher-kva.test", "xn--bcher-kva.test"),
        ("a-b_c.1.test", "a-b_c.1.test"),
        ("", ""),
        (".", ""),
        ("example.test..", "example.test."),
    ])
    func namesAreLowerCasedAndLoseOneTrailingDot(name: String, expected: String) {
        #expect(HostName.normalized(name) == expected)
    }

    @Test func onlyASCIILettersChangeCase() {
        #expect(HostName.normalized("ÄB.test") == "Äb.test")
    }

    @Test(arguments: ["example.test", "Example.test", "example.test.", "", "."])
    func aNameIsNormalizedExactlyWhenNormalizingLeavesItAsItIs(name: String) {
        #expect(HostName.isNormalized(name) == (HostName.normalized(name) == name))
    }
}
