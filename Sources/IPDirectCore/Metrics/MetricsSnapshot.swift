/// Everything `/metrics` reports, read at one moment: the workers' traffic added up and the shared
/// resolver's and login counters. Rendering it is pure, so the page is tested without a daemon.
public struct MetricsSnapshot: Sendable, Equatable {
    public var traffic: TrafficMetrics
    public var cache: ResolverCacheCounters
    public var cacheEntries: Int
    public var sources: SourceQueryCounters
    public var upstreams: UpstreamSelectionCounters
    public var auth: AuthCounters
    /// Times the DNS loop guard found the system source asking ipdirect itself.
    public var dnsLoopDetections: UInt64 = 0

    public init(traffic: TrafficMetrics = TrafficMetrics(), cache: ResolverCacheCounters = ResolverCacheCounters(),
                cacheEntries: Int = 0, sources: SourceQueryCounters = SourceQueryCounters(),
                upstreams: UpstreamSelectionCounters = UpstreamSelectionCounters(), auth: AuthCounters = AuthCounters()) {
        self.traffic = traffic
        self.cache = cache
        self.cacheEntries = cacheEntries
        self.sources = sources
        self.upstreams = upstreams
        self.auth = auth
    }

    /// Every metric name starts with this, so ipdirect's series never collide with another exporter's.
    public static let prefix = "ipdirect_"

    /// The page in Prometheus text format 0.0.4. Labelled families are sorted by label values so two
    /// scrapes of the same state are byte-identical.
    public var prometheusText: String {
        var page = PrometheusText()
        let p = Self.prefix
        page.family(p + "build_info", .gauge, help: "Always 1; the version label says which ipdirect is running.")
        page.sample(p + "build_info", labels: [("version", IPDirectVersion.string)], UInt64(1))

        page.family(p + "requests_total", .counter,
                    help: "Requests and tunnels finished, by method and the status sent (0: none was sent).")
        let requests = traffic.requests
        for key in requests.keys.sorted(by: { ($0.method, $0.status) < ($1.method, $1.status) }) {
            page.sample(p + "requests_total", labels: [("method", key.method), ("status", String(key.status))],
                        requests[key] ?? 0)
        }
        page.single(p + "client_connections_total", .counter,
                    help: "Client connections accepted.", traffic.connectionsAccepted)
        page.single(p + "client_connections_active", .gauge,
                    help: "Client connections open now.", traffic.connectionsActive)
        page.single(p + "client_connections_parked", .gauge,
                    help: "Kept-alive client connections waiting between requests with no buffers held.",
                    traffic.connectionsParked)
        page.single(p + "tunnels_total", .counter,
                    help: "CONNECT tunnels and upgraded connections opened.", traffic.tunnelsOpened)
        page.single(p + "tunnels_active", .gauge,
                    help: "CONNECT tunnels and upgraded connections relaying now.", traffic.tunnelsActive)
        page.single(p + "client_received_bytes_total", .counter,
                    help: "Bytes received from clients, heads included, counted when each request or tunnel ends.",
                    traffic.bytesFromClients)
        page.single(p + "client_sent_bytes_total", .counter,
                    help: "Bytes sent to clients, heads included, counted when each request or tunnel ends.",
                    traffic.bytesToClients)
        page.single(p + "spliced_bytes_total", .counter,
                    help: "Tunnel and body bytes moved in the kernel through a pipe (splice).", traffic.splicedBytes)
        page.single(p + "pipes_open", .gauge,
                    help: "Pipe pairs open now, in use or kept for reuse (max_pipes).", traffic.pipesOpen)
        page.single(p + "pipe_shortages_total", .counter,
                    help: "Times bytes in flight found every pipe busy and went through a user-space buffer.",
                    traffic.pipeShortages)

        labelledCounter(&page, p + "upstream_connect_failures_total", label: "reason", traffic.connectFailures,
                        help: "Upstream connections that failed before TLS, by Proxy-Status error type.")
        labelledCounter(&page, p + "upstream_tls_failures_total", label: "reason", traffic.tlsFailures,
                        help: "TLS handshakes with upstreams that failed, by Proxy-Status error type.")
        page.family(p + "transparent_connections_total", .counter,
                    help: "Connections redirected to the transparent listener, by what named their host (tls, http, dns, none) and what became of them (resolved, original, refused, loop).")
        for (sniffed, outcome, value) in traffic.transparentConnections.counted {
            page.sample(p + "transparent_connections_total",
                        labels: [("sniffed", sniffed.rawValue), ("outcome", outcome.rawValue)], value)
        }
        upstreams.render(&page, prefix: p)
        auth.render(&page, prefix: p)
        traffic.dns.render(&page, prefix: p)

        page.family(p + "resolver_queries_total", .counter, help: "Queries to resolver sources, by source and outcome.")
        for source in sources.queries.keys.sorted() {
            for outcome in SourceQueryOutcome.allCases {
                guard let count = sources.queries[source]?[outcome] else { continue }
                page.sample(p + "resolver_queries_total", labels: [("source", source), ("outcome", outcome.rawValue)], count)
            }
        }
        page.family(p + "dot_connections_opened_total", .counter,
                    help: "TLS connections opened to DNS-over-TLS providers, by provider (reconnects included).")
        for provider in sources.dotConnectionsOpened.keys.sorted() {
            page.sample(p + "dot_connections_opened_total", labels: [("provider", provider)],
                        sources.dotConnectionsOpened[provider]!)
        }
        page.single(p + "resolver_system_disagreements_total", .counter,
                    help: "Names whose system DNS answer shared no address with HTTPDNS's (compare_system).",
                    sources.systemDisagreements)
        page.single(p + "dns_loop_detections_total", .counter,
                    help: "Times the system source was found asking ipdirect's own DNS listener, and switched off.",
                    dnsLoopDetections)
        let cacheCounters: [(String, UInt64, String)] = [
            ("hits", cache.hits, "Cache lookups answered within the TTL, negative answers included."),
            ("misses", cache.misses, "Cache lookups that found nothing usable."),
            ("stale_serves", cache.staleServes, "Answers served past their TTL (RFC 8767)."),
            ("refreshes", cache.refreshes, "Background refreshes asked for."),
            ("evictions", cache.evictions, "Entries dropped to stay within max_entries."),
        ]
        for (what, value, help) in cacheCounters {
            page.family(p + "resolver_cache_\(what)_total", .counter, help: help)
            page.sample(p + "resolver_cache_\(what)_total", value)
        }
        page.single(p + "resolver_cache_entries", .gauge,
                    help: "Answers cached now, one per name and address family.", Int64(cacheEntries))

        let histograms: [(String, LatencyHistogram, String)] = [
            ("resolve_duration_seconds", traffic.resolveDuration, "Time to resolve an upstream host, per request that resolved one."),
            ("upstream_connect_duration_seconds", traffic.connectDuration,
             "Time to connect to an upstream, TLS handshake included, per request that connected."),
            ("upstream_first_byte_duration_seconds", traffic.firstByteDuration,
             "Time from a request head to the response head (time to first byte)."),
        ]
        for (name, histogram, help) in histograms {
            page.family(p + name, .histogram, help: help)
            page.histogram(p + name, histogram)
        }
        return page.text
    }

    private func labelledCounter(_ page: inout PrometheusText, _ name: String, label: String,
                                 _ values: [String: UInt64], help: String) {
        page.family(name, .counter, help: help)
        for key in values.keys.sorted() {
            page.sample(name, labels: [(label, key)], values[key] ?? 0)
        }
    }
}
