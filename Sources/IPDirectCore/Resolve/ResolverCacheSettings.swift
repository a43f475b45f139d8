/// The tunables of the resolver cache, all in whole seconds except the entry count.
public struct ResolverCacheSettings: Sendable, Equatable, CustomStringConvertible {
    /// Answers with a shorter TTL are kept this long, so a provider handing out
    /// TTL 0 or 1 cannot turn every request into a query.
    public static let defaultMinTTL: UInt32 = 30
    /// Answers are re-fetched at least daily however long a TTL the provider gives.
    public static let defaultMaxTTL: UInt32 = 86_400
    /// How long "no such name" / "no data" is remembered (RFC 2308 §5 negative caching).
    public static let defaultNegativeTTL: UInt32 = 30
    /// How long past expiry an answer may still be served while a refresh runs or
    /// when every source fails; RFC 8767 §5 suggests one to three days.
    public static let defaultServeStale: UInt32 = 86_400
    /// Enough names for a busy desktop; each entry is a few hundred bytes.
    public static let defaultMaxEntries = 10_000

    public var minTTL: UInt32
    /// Never below `minTTL`: the initialiser raises it.
    public var maxTTL: UInt32
    public var negativeTTL: UInt32
    /// Zero turns serving stale answers off.
    public var serveStale: UInt32
    /// At least one: the initialiser raises it.
    public var maxEntries: Int

    public init(
        minTTL: UInt32 = defaultMinTTL,
        maxTTL: UInt32 = defaultMaxTTL,
        negativeTTL: UInt32 = defaultNegativeTTL,
        serveStale: UInt32 = defaultServeStale,
        maxEntries: Int = defaultMaxEntries
    ) {
        self.minTTL = minTTL
        self.maxTTL = max(minTTL, maxTTL)
        self.negativeTTL = negativeTTL
        self.serveStale = serveStale
        self.maxEntries = max(1, maxEntries)
    }

    /// The TTL an answer is cached for: the provider's TTL clamped to `[minTTL, maxTTL]`.
    public func clampedTTL(_ answerTTL: UInt32) -> UInt32 {
        min(max(answerTTL, minTTL), maxTTL)
    }

    public var description: String {
        "min_ttl=\(minTTL) max_ttl=\(maxTTL) negative_ttl=\(negativeTTL) serve_stale=\(serveStale) "
            + "max_entries=\(maxEntries)"
    }
}
