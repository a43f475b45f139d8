import Testing
@testable import IPDirectCore

/// The DNS listener's relay counters: one series per upstream and outcome, added up across workers.
@Suite struct DNSListenerCountersTests {
    @Test func relayedQueriesAreCountedByUpstreamAndOutcomeAcrossWorkers() {
        var first = DNSListenerCounters()
        first.countRelay(toProvider: true, answered: true)
        first.countRelay(toProvider: false, answered: false)
        var second = DNSListenerCounters()
        second.countRelay(toProvider: true, answered: true)
        first.add(second)
        var page = PrometheusText()
        first.render(&page, prefix: "ipdirect_")
        let lines = page.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("ipdirect_dns_relayed_total{upstream=\"forward\",outcome=\"failed\"} 1"))
        #expect(lines.contains("ipdirect_dns_relayed_total{upstream=\"provider\",outcome=\"answered\"} 2"))
        #expect(!lines.contains { $0.hasPrefix("ipdirect_dns_relayed_total{upstream=\"forward\",outcome=\"answered\"}") })
    }

    @Test func templateAnswersAreQueriesOfTheirTransportAndTypeAcrossWorkers() {
        var first = DNSListenerCounters()
        first.countQuery(transport: "udp", type: DNSType.a, rcode: .noError)
        first.countAddressAnswer(tcp: false, ipv6: false)
        first.countAddressAnswer(tcp: true, ipv6: true)
        var second = DNSListenerCounters()
        second.countAddressAnswer(tcp: false, ipv6: false)
        first.add(second)
        var page = PrometheusText()
        first.render(&page, prefix: "ipdirect_")
        let lines = page.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("ipdirect_dns_queries_total{transport=\"udp\",qtype=\"A\",rcode=\"NOERROR\"} 3"))
        #expect(lines.contains("ipdirect_dns_queries_total{transport=\"tcp\",qtype=\"AAAA\",rcode=\"NOERROR\"} 1"))
        #expect(lines.contains("ipdirect_dns_template_answers_total 3"))
        #expect(!lines.contains { $0.hasPrefix("ipdirect_dns_queries_total{transport=\"tcp\",qtype=\"A\"") })
    }
}
