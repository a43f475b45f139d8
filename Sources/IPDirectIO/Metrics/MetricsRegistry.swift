import IPDirectCore

/// Where `/metrics` reads from: every worker's traffic cell, the shared resolver's and login counters.
final class MetricsRegistry: Sendable {
    private let workers: [TrafficMetricsCell]
    private let resolver: ResolverService
    private let health: UpstreamHealth?
    private let credentials: CredentialService?

    init(workers: [TrafficMetricsCell], resolver: ResolverService, health: UpstreamHealth? = nil,
         credentials: CredentialService? = nil) {
        self.workers = workers
        self.resolver = resolver
        self.health = health
        self.credentials = credentials
    }

    /// Adds the workers up, one lock at a time; the figures of different workers may be a few
    /// microseconds apart, which no scraper can tell.
    func snapshot() -> MetricsSnapshot {
        var traffic = TrafficMetrics()
        for cell in workers { traffic.add(cell.snapshot) }
        let (cache, entries, sources, loops) = resolver.state.withLock {
            ($0.cache.counters, $0.cache.count, $0.sources, $0.loopGuard.detections)
        }
        var snapshot = MetricsSnapshot(traffic: traffic, cache: cache, cacheEntries: entries, sources: sources,
                                       upstreams: health?.counters() ?? UpstreamSelectionCounters(),
                                       auth: credentials?.counters() ?? AuthCounters())
        snapshot.dnsLoopDetections = loops
        return snapshot
    }
}
