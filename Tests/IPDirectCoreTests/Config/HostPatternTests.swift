import Testing
@testable import IPDirectCore

/// `https_upgrade` rules: which hosts a rule names, how it is spelt, and what is refused.
@Suite struct HostPatternTests {
    @Test(arguments: [
        ("api.example.com", "api.example.com", true),
        ("api.example.com", "www.api.example.com", false),
        ("api.example.com", "example.com", false),
        ("api.example.com", "api.example.co", false),
        ("*.example.net", "a.example.net", true),
        ("*.example.net", "a.b.example.net", true),
        ("*.example.net", "example.net", false),
        ("*.example.net", "badexample.net", false),
        ("*.example.net", ".example.net", false),
        ("*.example.net", "example.net.evil.test", false),
        ("*.example.net:8443", "a.example.net", true),
        ("plain.example.org:8443", "plain.example.org", true),
        ("Plain.Example.ORG.", "plain.example.org", true),
    ])
    func matchesExactNamesAndSubdomainsButNotTheBareNameOfAWildcard(rule: String, host: String, matches: Bool) throws {
        let pattern = try #require(HostPattern(rule))
        #expect(pattern.matches(host) == matches, "\(rule) vs \(host)")
    }

    @Test(arguments: [
        ("api.example.com", "api.example.com", nil),
        ("*.example.net", "*.example.net", nil),
        ("plain.example.org:8443", "plain.example.org", 8443),
        ("*.Example.NET.:443", "*.example.net", 443),
    ] as [(String, String, UInt16?)])
    func keepsTheNamedPortAndWritesTheRuleInNormalForm(rule: String, written: String, port: UInt16?) throws {
        let pattern = try #require(HostPattern(rule))
        #expect(pattern.port == port)
        #expect(pattern.description == (port.map { "\(written):\($0)" } ?? written))
        #expect(HostPattern(pattern.description) == pattern)
    }

    @Test(arguments: [
        ("192.0.2.1", "'192.0.2.1' is an IP address; rules name hosts"),
        ("192.0.2.1:443", "'192.0.2.1:443' is an IP address; rules name hosts"),
        ("[::1]:443", "'[::1]:443' is an IP address; rules name hosts"),
        ("2001:db8::1", "'2001:db8::1' is an IP address; rules name hosts"),
        ("api.example.com:0", "'api.example.com:0': '0' is not a port (1-65535)"),
        ("api.example.com:65536", "'api.example.com:65536': '65536' is not a port (1-65535)"),
        ("api.example.com:", "'api.example.com:': '' is not a port (1-65535)"),
        ("api.example.com:+443", "'api.example.com:+443': '+443' is not a port (1-65535)"),
        ("api.example.com:https", "'api.example.com:https': 'https' is not a port (1-65535)"),
        ("*", "'*': a wildcard must be the whole first label, as in *.example.net"),
        ("*.", "'*.': a wildcard must be the whole first label, as in *.example.net"),
        ("a*.example.net", "'a*.example.net': a wildcard must be the whole first label, as in *.example.net"),
        ("*.*.example.net", "'*.*.example.net': a wildcard must be the whole first label, as in *.example.net"),
        ("api.*.example.net", "'api.*.example.net': a wildcard must be the whole first label, as in *.example.net"),
        ("", "'' is not a host name"),
        ("api_example.com", "'api_example.com' is not a host name: only letters, digits, hyphens and dots are allowed"),
        ("*.exa mple.net:443", "'exa mple.net' is not a host name: only letters, digits, hyphens and dots are allowed"),
    ])
    func refusesWhatIsNotAHostRule(rule: String, message: String) {
        #expect(HostPattern(rule) == nil)
        guard case .failure(let rejection) = HostPattern.parse(rule) else {
            Issue.record("\(rule) was accepted")
            return
        }
        #expect(rejection.message == message)
    }

    @Test(arguments: [
        ("a.example.net", "a.example.net:8443", true),
        ("*.example.net", "a.example.net", true),
        ("*.example.net", "a.b.example.net:443", true),
        ("*.example.net", "*.a.example.net", true),
        ("*.example.net", "*.example.net:8443", true),
        ("*.example.net", "example.net", false),
        ("*.a.example.net", "*.example.net", false),
        ("a.example.net", "*.example.net", false),
        ("a.example.net", "b.example.net", false),
    ])
    func knowsWhenAnEarlierRuleLeavesALaterOneNothingToMatch(earlier: String, later: String, covers: Bool) throws {
        let earlierPattern = try #require(HostPattern(earlier))
        let laterPattern = try #require(HostPattern(later))
        #expect(earlierPattern.covers(laterPattern) == covers, "\(earlier) before \(later)")
    }
}
