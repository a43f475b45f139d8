/// The DNS listener's numbers, kept per worker and added up for `/metrics`. Label values are a fixed set:
/// the query type is a name only for the types listed in `DNSType`, else `other`.
public struct DNSListenerCounters: Sendable, Equatable {
    public struct QueryKey: Hashable, Sendable {
        public var transport: String
        public var qtype: String
        public var rcode: String
    }

    /// Where a relayed query went, and whether an answer came back from there.
    public struct RelayKey: Hashable, Sendable {
        /// `forward` (the plain-DNS servers) or `provider` (a doh or dot provider).
        public var upstream: String
        /// `answered`, or `failed` (SERVFAIL to the client).
        public var outcome: String
    }

    public var queries: [QueryKey: UInt64] = [:]
    /// NOERROR answers to A and AAAA questions that came from an answer template, counted by position
    /// (`addressAnswerSlot`) instead of by hashing three labels; shown in `dns_queries_total` with the rest.
    public var addressAnswers = [UInt64](repeating: 0, count: 4)
    public var relayed: [RelayKey: UInt64] = [:]
    /// UDP answers that left records out and set TC.
    public var truncated: UInt64 = 0
    /// Non-public addresses left out of a public name's answer (rebinding guard).
    public var rebindingDrops: UInt64 = 0
    /// Messages dropped unanswered: unreadable, not a query, or from a client outside `[access] clients`
    /// on UDP (refused there with REFUSED, which is counted as a query).
    public var dropped: UInt64 = 0

    public init() {}

    public mutating func countQuery(transport: String, type: UInt16, rcode: DNSExtendedResponseCode) {
        let typeName = DNSType.name(type)
        let label = typeName.hasPrefix("TYPE") ? "other" : typeName
        queries[QueryKey(transport: transport, qtype: label, rcode: rcode.description), default: 0] += 1
    }

    public mutating func countAddressAnswer(tcp: Bool, ipv6: Bool) {
        addressAnswers[(tcp ? 2 : 0) + (ipv6 ? 1 : 0)] += 1
    }

    /// Every query counted, by its labels.
    public var queriesByKey: [QueryKey: UInt64] {
        var all = queries
        for (slot, count) in addressAnswers.enumerated() where count > 0 {
            all[QueryKey(transport: slot < 2 ? "udp" : "tcp", qtype: slot % 2 == 0 ? "A" : "AAAA", rcode: "NOERROR"),
                default: 0] += count
        }
        return all
    }

    public mutating func countRelay(toProvider: Bool, answered: Bool) {
        relayed[RelayKey(upstream: toProvider ? "provider" : "forward", outcome: answered ? "answered" : "failed"), default: 0] += 1
    }

    public mutating func add(_ other: DNSListenerCounters) {
        queries.merge(other.queries, uniquingKeysWith: +)
        for slot in addressAnswers.indices { addressAnswers[slot] += other.addressAnswers[slot] }
        relayed.merge(other.relayed, uniquingKeysWith: +)
        truncated += other.truncated
        rebindingDrops += other.rebindingDrops
        dropped += other.dropped
    }

    func render(_ page: inout PrometheusText, prefix p: String) {
        page.family(p + "dns_queries_total", .counter, help: "Queries the DNS listener answered, by transport, type and RCODE.")
        let queries = queriesByKey
        for key in queries.keys.sorted(by: { ($0.transport, $0.qtype, $0.rcode) < ($1.transport, $1.qtype, $1.rcode) }) {
            page.sample(p + "dns_queries_total",
                        labels: [("transport", key.transport), ("qtype", key.qtype), ("rcode", key.rcode)], queries[key] ?? 0)
        }
        page.family(p + "dns_relayed_total", .counter, help: "Queries relayed to forward servers or providers, by upstream and outcome.")
        for key in relayed.keys.sorted(by: { ($0.upstream, $0.outcome) < ($1.upstream, $1.outcome) }) {
            page.sample(p + "dns_relayed_total", labels: [("upstream", key.upstream), ("outcome", key.outcome)], relayed[key] ?? 0)
        }
        page.single(p + "dns_template_answers_total", .counter,
                    help: "Answers to repeated A and AAAA questions written from a kept answer template (counted in dns_queries_total too).",
                    addressAnswers.reduce(0, +))
        page.single(p + "dns_truncated_total", .counter, help: "UDP answers sent with TC set and records left out.", truncated)
        page.single(p + "dns_rebinding_drops_total", .counter,
                    help: "Non-public addresses left out of answers for public names (allow_private_upstreams = false).",
                    rebindingDrops)
        page.single(p + "dns_dropped_total", .counter, help: "DNS messages dropped unanswered (unreadable or not a query).",
                    dropped)
    }
}
