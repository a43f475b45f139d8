/// What a cache lookup found. Ages are milliseconds since the answer was fetched.
public enum CacheLookup: Sendable, Equatable, CustomStringConvertible {
    /// Within the first 75% of its TTL (or an unexpired negative answer): use it.
    case fresh(CachedAnswer, age: Int64)
    /// Past 75% of its TTL but unexpired: use it AND start one background refresh,
    /// so a name in steady use never expires in front of a user.
    case refreshDue(CachedAnswer, age: Int64)
    /// Expired but inside the serve-stale window (RFC 8767 §4): use it while a
    /// refresh runs, or when every source fails; `refresh` when this lookup must start that refresh
    /// (at most one per `ResolverCache.refreshRetryMillis`).
    case stale(CachedAnswer, age: Int64, refresh: Bool)
    /// Nothing usable: ask the sources and wait.
    case miss

    /// The answer to use, if any.
    public var answer: CachedAnswer? {
        switch self {
        case .fresh(let answer, _), .refreshDue(let answer, _), .stale(let answer, _, _): return answer
        case .miss: return nil
        }
    }

    public var description: String {
        switch self {
        case .fresh(let answer, let age): return "fresh age_ms=\(age) \(answer)"
        case .refreshDue(let answer, let age): return "refresh-due age_ms=\(age) \(answer)"
        case .stale(let answer, let age, let refresh): return "stale age_ms=\(age)\(refresh ? " refresh" : "") \(answer)"
        case .miss: return "miss"
        }
    }
}

/// One row of the admin dump of the cache.
public struct CacheSnapshotRow: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var family: AddressFamily
    /// Empty for a negative answer.
    public var addresses: [IPAddress]
    /// Whole seconds; negative while the entry is served stale.
    public var secondsLeft: Int64
    public var source: String

    public var description: String {
        let answer = addresses.isEmpty ? "negative" : addresses.map(\.description).joined(separator: ",")
        return "\(name) \(family) \(answer) ttl_left=\(secondsLeft) source=\(source)"
    }
}
