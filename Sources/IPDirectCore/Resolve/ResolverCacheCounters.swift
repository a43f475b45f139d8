/// Cache activity as plain numbers, for the metrics endpoint of a later issue
/// (`resolver_cache_hits_total` and so on).
public struct ResolverCacheCounters: Sendable, Equatable, CustomStringConvertible {
    /// Lookups answered fresh or refresh-due, negative answers included.
    public var hits: UInt64 = 0
    public var misses: UInt64 = 0
    public var staleServes: UInt64 = 0
    /// Background refreshes asked for at the refresh point.
    public var refreshes: UInt64 = 0
    /// Entries dropped to stay within the entry bound.
    public var evictions: UInt64 = 0

    public init() {}

    public var description: String {
        "hits=\(hits) misses=\(misses) stale_serves=\(staleServes) refreshes=\(refreshes) evictions=\(evictions)"
    }
}
