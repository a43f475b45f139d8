/// The `[dns]` section: a DNS listener that answers A and AAAA queries from the same `[hosts]`, cache and
/// HTTPDNS sources as the proxy, ordered by the proxy's address ranking, so that programs that never use
/// a proxy still get HTTPDNS answers. Off unless `listen` names an address.
public struct DNSSettings: Sendable, Equatable {
    /// UDP and TCP on each address; empty turns the listener off.
    public var listen: [SocketAddress] = []
    /// The most TTL handed out, whatever is left of the cached answer (dnsmasq's `--max-ttl`): clients come
    /// back soon enough to see a new ranking.
    public var maxTTLSeconds = 60
    /// The TTL of an answer served past its expiry (RFC 8767 §4; unbound and dnsproxy use 30).
    public var staleTTLSeconds = 30
    /// The TTL of `[hosts]` and `localhost` answers, which ipdirect makes up itself.
    public var hostsTTLSeconds = 10
    /// How long a client may cache NXDOMAIN or NODATA: the SOA's MINIMUM and TTL (RFC 2308 §5).
    public var negativeTTLSeconds = 30
    /// 0 hands out every usable address in rank order; N only the best N. Clients such as glibc and Go
    /// re-sort what they get (RFC 6724), so 1 is the only way to make them use the best.
    public var maxAddresses = 0
    /// The port the ranking is read at: it is kept per address and port, and DNS carries no port.
    public var rankPort: UInt16 = 443
    /// The largest UDP answer, and the EDNS size advertised (DNS flag day 2020: 1232).
    public var udpPayloadSize = 1232
    /// NXDOMAIN for `use-application-dns.net`, which turns Firefox's own DoH off so it resolves through us.
    public var firefoxCanary = true
    /// Probe the addresses of every name answered at `rank_port` (rate-limited), so a ranking exists for
    /// names whose connections ipdirect never carries. Off: it sends connections to hosts nobody asked
    /// ipdirect to connect to; names matching `[[upstream.probe]]` are probed either way.
    public var probeAnswers = false
    /// The level of the line logged for each query.
    public var queryLogLevel = LogLevel.debug
    /// Lookups each worker keeps for `GET /queries` (the listener's queries and the proxy's lookups); 0 keeps
    /// none. Taken at start: a reload does not resize the log.
    public var queryLogEntries = 1000
    /// Plain-DNS servers for the names HTTPDNS never hears of (single labels, `.local`, `.home.arpa`,
    /// `[resolver] bypass`, private PTR); empty answers those NXDOMAIN. Never read from /etc/resolv.conf,
    /// which names ipdirect itself once it is the machine's resolver.
    public var forward: [SocketAddress] = []
    /// What becomes of queries for types other than A, AAAA, ANY, HTTPS and SVCB.
    public var otherTypes = DNSOtherTypes.forward
    /// What becomes of HTTPS and SVCB queries.
    public var httpsRecords = DNSHTTPSRecords.stripHints

    public init() {}

    /// The name Firefox asks before it turns its default DoH on (Mozilla's "canary domain").
    public static let firefoxCanaryName = "use-application-dns.net"
    /// TCP connections idle this long are closed (RFC 7766 §6.2.3 suggests seconds).
    public static let tcpIdleTimeoutMs = 10_000
    /// Ranking probes `probe_answers` may start per second, and at once.
    public static let answerProbesPerSecond = 20
    public static let answerProbeBurst = 100
    /// Answers one worker keeps in wire form for repeated A and AAAA questions (`DNSAnswerTemplates`):
    /// at most about 250 octets each.
    public static let answerTemplatesPerWorker = 32_768
    /// How long a template whose addresses were put in order by the ranking may be used: ties take turns
    /// and an avoided address comes back as time passes, without a change the templates would see.
    public static let rankedTemplateLifetimeMicros: Int64 = 1_000_000
    /// Queries one TCP connection may have being answered at once; more wait for the socket to be read.
    public static let maxQueriesInFlightPerConnection = 64
    /// How long a `forward` server has to answer before the next one is asked (or SERVFAIL after the last).
    public static let forwardTimeoutMs = 2_000
    /// Queries one worker may have relayed and unanswered at once; past it a query gets SERVFAIL, so a
    /// flood of relayed names costs bounded sockets and memory.
    public static let maxForwardedInFlightPerWorker = 256
}

/// `[dns] other_types`: types the proxy's resolver has no answer for.
public enum DNSOtherTypes: String, Sendable, Equatable, CaseIterable {
    /// Relayed to a DoH provider for the name (DoH speaks any type), else to `forward`, else REFUSED.
    case forward
    case refuse
}

/// `[dns] https_records`: HTTPS and SVCB answers carry address hints that a client may use in place of
/// A and AAAA, and so in place of the ranking (RFC 9460 §7.3).
public enum DNSHTTPSRecords: String, Sendable, Equatable, CaseIterable {
    /// NODATA: the client falls back to A and AAAA.
    case empty
    /// Relayed without the ipv4hint and ipv6hint parameters; ALPN, ECH and the rest stay.
    case stripHints = "strip_hints"
    /// Relayed as the provider gave them; their hints bypass the ranking.
    case forward
}

extension DNSSettings {
    static let sectionName = "dns"
    static let maximumTTLSeconds = 86_400

    static var configKeys: [ConfigKey<DNSSettings>] {
        [
            ConfigKey("listen", \.listen, .addresses(allowEmpty: true)),
            ConfigKey("max_ttl", \.maxTTLSeconds, .integer(in: 1...maximumTTLSeconds)),
            ConfigKey("stale_ttl", \.staleTTLSeconds, .integer(in: 1...maximumTTLSeconds)),
            ConfigKey("hosts_ttl", \.hostsTTLSeconds, .integer(in: 0...maximumTTLSeconds)),
            ConfigKey("negative_ttl", \.negativeTTLSeconds, .integer(in: 0...maximumTTLSeconds)),
            ConfigKey("max_addresses", \.maxAddresses, .integer(in: 0...64)),
            ConfigKey("rank_port", \.rankPort, .port),
            ConfigKey("udp_payload", \.udpPayloadSize, .integer(in: 512...4096)),
            ConfigKey("firefox_canary", \.firefoxCanary, .boolean),
            ConfigKey("probe_answers", \.probeAnswers, .boolean),
            ConfigKey("query_log_level", \.queryLogLevel, .choice),
            ConfigKey("query_log", \.queryLogEntries, .integer(in: 0...100_000)),
            ConfigKey("forward", \.forward, .oneOrList(of: .nameserver, allowEmpty: true, expected: "an address or an array of addresses")),
            ConfigKey("other_types", \.otherTypes, .choice),
            ConfigKey("https_records", \.httpsRecords, .choice),
        ]
    }

    static var section: ConfigSection {
        .keyed(sectionName, \.dns, keys: configKeys)
    }

    /// The loop guard, once every section is read: `[resolver] system_nameservers` naming this listener
    /// would make the `system` source ask ipdirect itself.
    /// `forward` naming this listener would relay a query to ipdirect itself, again and again.
    static func loopProblems(_ config: Config, listenLine: Int) -> [ConfigDiagnostic] {
        let system = config.dns.listen.filter { config.resolver.systemNameservers.contains($0) }.map { address in
            ConfigDiagnostic(line: listenLine, message: "listen: \(address) is also in [resolver] system_nameservers; the system source would ask ipdirect itself (a loop)")
        }
        let forwarded = config.dns.forward.filter { server in config.dns.listen.contains { $0.reaches(server) } }.map { server in
            ConfigDiagnostic(line: listenLine, message: "listen: \(server) is also in forward; forwarded queries would come back to ipdirect (a loop)")
        }
        return system + forwarded
    }
}

extension SocketAddress {
    /// Whether a datagram sent to `destination` arrives at a socket bound here: the same address, or a
    /// wildcard bind of the same family and port (0.0.0.0:53 also receives 127.0.0.1:53).
    func reaches(_ destination: SocketAddress) -> Bool {
        guard port == destination.port, ip.isIPv6 == destination.ip.isIPv6 else { return false }
        return ip == destination.ip || ip.isUnspecified
    }
}
