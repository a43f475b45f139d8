import Testing
@testable import IPDirectCore

/// Which providers are asked for a name, in which order: domain-limited ones that match first,
/// then the general ones, never a limited one that does not match; demoted ones last.
@Suite struct HTTPDNSProviderSelectionTests {
    static func patterns(_ texts: String...) -> [HostPattern] {
        texts.map { HostPattern($0)! }
    }

    /// 0 general, 1 limited to *.cn.example, 2 general, 3 limited to api.example.org and *.cn.example.
    static let selection = HTTPDNSProviderSelection(domains: [
        [], patterns("*.cn.example"), [], patterns("api.example.org", "*.cn.example"),
    ])

    @Test(arguments: [
        ("www.example.com", [0, 2]),
        ("cn.example", [0, 2]),
        ("a.cn.example", [1, 3, 0, 2]),
        ("deep.a.cn.example", [1, 3, 0, 2]),
        ("api.example.org", [3, 0, 2]),
        ("www.api.example.org", [0, 2]),
    ] as [(String, [Int])])
    func asksMatchingLimitedProvidersFirstThenTheGeneralOnes(name: String, order: [Int]) {
        #expect(Self.selection.order(for: name) == order)
    }

    @Test func keepsTheConfiguredOrderWithoutDomains() {
        let selection = HTTPDNSProviderSelection(domains: [[], [], []])
        #expect(selection.order(for: "www.example.com") == [0, 1, 2])
        #expect(HTTPDNSProviderSelection(domains: []).order(for: "www.example.com") == [])
    }

    @Test func neverAsksALimitedProviderForANameOutsideItsDomains() {
        let onlyLimited = HTTPDNSProviderSelection(domains: [Self.patterns("*.cn.example")])
        #expect(onlyLimited.order(for: "www.example.com") == [])
        #expect(onlyLimited.order(for: "www.cn.example") == [0])
        #expect(onlyLimited.order(for: "www.example.com", demoted: [0]) == [])
    }

    @Test func movesDemotedProvidersBehindTheOthersInTheSameOrder() {
        #expect(Self.selection.order(for: "a.cn.example", demoted: [1]) == [3, 0, 2, 1])
        #expect(Self.selection.order(for: "a.cn.example", demoted: [1, 0]) == [3, 2, 1, 0])
        #expect(Self.selection.order(for: "www.example.com", demoted: [0, 3]) == [2, 0])
    }

    @Test func readsDomainsFromTheProviderSettings() throws {
        let providers = try Config.parse("""
            [[resolver.httpdns]]
            name = "general"
            format = "doh"
            url = "https://192.0.2.1/dns-query"

            [[resolver.httpdns]]
            name = "limited"
            format = "tencent"
            url = "http://192.0.2.2/d"
            domains = ["*.cn.example"]
            """).get().resolver.httpdns
        let selection = HTTPDNSProviderSelection(providers)
        #expect(selection.order(for: "www.cn.example") == [1, 0])
        #expect(selection.isDomainLimited(1) && !selection.isDomainLimited(0))
    }
}
