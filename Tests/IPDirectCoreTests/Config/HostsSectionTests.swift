import Testing
@testable import IPDirectCore

/// `[hosts]`: host names normalised and validated, addresses parsed, mistakes explained.
@Suite struct HostsSectionTests {
    static func hosts(_ body: String) -> [String: [IPAddress]]? {
        try? Config.parse("[hosts]\n" + body).get().hosts
    }

    static func diagnostics(_ body: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse("[hosts]\n" + body) else { return [] }
        return error.diagnostics
    }

    @Test func acceptsOneAddressOrAList() {
        let hosts = Self.hosts("""
            "example.com" = "192.0.2.10"
            "api.example.com" = ["192.0.2.20", "2001:DB8::20"]
            localhost = "127.0.0.1"
            """)
        #expect(hosts == [
            "example.com": [IPAddress("192.0.2.10")!],
            "api.example.com": [IPAddress("192.0.2.20")!, IPAddress("2001:db8::20")!],
            "localhost": [IPAddress("127.0.0.1")!],
        ])
    }

    @Test(arguments: [
        ("Example.COM", "example.com"), ("example.com.", "example.com"), ("WWW.Example.Com.", "www.example.com"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"), ("a-1.b2", "a-1.b2"), ("x", "x"),
    ])
    func normalisesHostNames(written: String, stored: String) {
        #expect(Self.hosts("\"\(written)\" = \"192.0.2.1\"") == [stored: [IPAddress("192.0.2.1")!]])
    }

    @Test(arguments: [
        ("", "hosts: '' is not a host name"),
        (".", "hosts: '.' is not a host name"),
        ("a..b", "hosts: 'a..b' is not a host name: empty label"),
        ("-a.example", "hosts: '-a.example' is not a host name: a label starts or ends with a hyphen"),
        ("a-.example", "hosts: 'a-.example' is not a host name: a label starts or ends with a hyphen"),
        ("a_b.example", "hosts: 'a_b.example' is not a host name: only letters, digits, hyphens and dots are allowed"),
        ("*.example", "hosts: '*.example' is not a host name: only letters, digits, hyphens and dots are allowed"),
        ("host:80", "hosts: 'host:80' is not a host name: only letters, digits, hyphens and dots are allowed"),
        ("bücher.example", "hosts: 'bücher.example' is not ASCII; write internationalised names in their xn-- form"),
        ("192.0.2.1", "hosts: '192.0.2.1' is an IP address, not a host name"),
        ("::1", "hosts: '::1' is an IP address, not a host name"),
        ("host.123", "hosts: 'host.123' is not a host name: the last label is all digits"),
        ("\(String(repeating: "a", count: 64)).example",
         "hosts: '\(String(repeating: "a", count: 64)).example' is not a host name: a label is longer than 63 characters"),
    ])
    func refusesInvalidHostNames(written: String, message: String) {
        #expect(Self.diagnostics("\"\(written)\" = \"192.0.2.1\"") == [ConfigDiagnostic(line: 2, message: message)])
    }

    @Test func refusesNamesLongerThanDNSAllows() {
        let label = String(repeating: "a", count: 63)
        let fits = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(fits.utf8.count == HostName.maximumLength)
        #expect(Self.hosts("\"\(fits)\" = \"192.0.2.1\"")?.keys.first == fits)
        #expect(Self.diagnostics("\"\(fits)b\" = \"192.0.2.1\"").first?.message.contains("longer than 253") == true)
    }

    @Test func suggestsQuotingForUnquotedDottedNames() {
        let diagnostics = Self.diagnostics("example.com = \"192.0.2.1\"\nwww.example.org = [\"192.0.2.2\"]")
        #expect(diagnostics == [
            ConfigDiagnostic(line: 2, message: "hosts: quote host names that contain dots, as in \"example.com\" = ..."),
            ConfigDiagnostic(line: 3, message: "hosts: quote host names that contain dots, as in \"www.example.org\" = ..."),
        ])
    }

    @Test func reportsTheSameNameWrittenTwiceAfterNormalising() {
        let diagnostics = Self.diagnostics("\"example.com\" = \"192.0.2.1\"\n\"EXAMPLE.com.\" = \"192.0.2.2\"")
        #expect(diagnostics == [ConfigDiagnostic(line: 3, message: "hosts: 'example.com' is listed twice (first on line 2)")])
    }

    @Test(arguments: [
        ("\"a.example\" = \"192.0.2.300\"", 2, "hosts: 'a.example': '192.0.2.300' is not an IP address"),
        ("\"a.example\" = []", 2, "hosts: 'a.example': must list at least one value"),
        ("\"a.example\" = [\n  \"192.0.2.1\",\n  \"nope\",\n]", 4, "hosts: 'a.example': 'nope' is not an IP address"),
        ("\"a.example\" = [\"192.0.2.1\", \"192.0.2.1\"]", 2, "hosts: 'a.example': 192.0.2.1 is listed twice (first on line 2)"),
        ("\"a.example\" = \"[::1]\"", 2, "hosts: 'a.example': '[::1]' is not an IP address"),
    ])
    func reportsBadAddressesOnTheirLines(body: String, line: Int, message: String) {
        #expect(Self.diagnostics(body) == [ConfigDiagnostic(line: line, message: message)])
    }

    @Test func reportsEveryBadEntryNotJustTheFirst() {
        let diagnostics = Self.diagnostics("\"a..b\" = \"192.0.2.1\"\n\"ok.example\" = \"192.0.2.2\"\n\"c.example\" = \"x\"\n")
        #expect(diagnostics.map(\.line) == [2, 4])
    }
}
