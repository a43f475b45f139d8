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

    public init() {}

    /// The name Firefox asks before it turns its default DoH on (Mozilla's "canary domain").
    public static let firefoxCanaryName = "use-application-dns.net"
    /// TCP connections idle this long are closed (RFC 7766 §6.2.3 suggests seconds).
    public static let tcpIdleTimeoutMs = 10_000
    /// Ranking probes `probe_answers` may start per second, and at once.
    public static let answerProbesPerSecond = 20
    public static let answerProbeBurst = 100
    /// Queries one TCP connection may have being answered at once; more wait for the socket to be read.
    public static let maxQueriesInFlightPerConnection = 64
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
        ]
    }

    static var section: ConfigSection {
        .keyed(sectionName, \.dns, keys: configKeys)
    }

    /// The loop guard, once every section is read: `[resolver] system_nameservers` naming this listener
    /// would make the `system` source ask ipdirect itself.
    static func loopProblems(_ config: Config, listenLine: Int) -> [ConfigDiagnostic] {
        config.dns.listen.filter { config.resolver.systemNameservers.contains($0) }.map { address in
            ConfigDiagnostic(line: listenLine, message: "listen: \(address) is also in [resolver] system_nameservers; the system source would ask ipdirect itself (a loop)")
        }
    }
}
