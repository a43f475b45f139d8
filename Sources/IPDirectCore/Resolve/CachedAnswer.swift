/// Milliseconds on the caller's monotonic clock. The cache never reads a clock:
/// every call that needs the time is given one of these, so tests advance time
/// by adding to a number instead of sleeping.
public typealias CacheInstant = Int64

/// Milliseconds per second, for turning TTLs (seconds) into instants.
let millisecondsPerSecond: Int64 = 1_000

/// One cached answer for a name and address family.
public struct CachedAnswer: Sendable, Equatable, CustomStringConvertible {
    /// Empty for a negative answer (NXDOMAIN or no data, RFC 2308 §1).
    public var addresses: [IPAddress]
    /// Who answered: a provider's configured name, or `system`.
    public var source: String
    public var fetchedAt: CacheInstant
    /// Seconds, already clamped by the cache's settings.
    public var ttl: UInt32
    /// When a lookup past the refresh point (or past expiry) last asked for a background refresh, so
    /// later lookups do not ask again until the refresh had time to succeed; a replacing insert clears it.
    public internal(set) var refreshRequestedAt: CacheInstant?

    public init(addresses: [IPAddress], source: String, fetchedAt: CacheInstant, ttl: UInt32) {
        self.addresses = addresses
        self.source = source
        self.fetchedAt = fetchedAt
        self.ttl = ttl
        self.refreshRequestedAt = nil
    }

    public var isNegative: Bool { addresses.isEmpty }

    /// For a negative answer: the name does not exist (NXDOMAIN), rather than having no address of
    /// this family (NODATA), so a cached answer says the same as the first one did.
    public var nameDoesNotExist = false

    public var expiresAt: CacheInstant { fetchedAt + Int64(ttl) * millisecondsPerSecond }

    public func age(at now: CacheInstant) -> Int64 { now - fetchedAt }

    /// Whole seconds until expiry; negative once expired (an admin dump shows how stale).
    public func secondsLeft(at now: CacheInstant) -> Int64 {
        let left = expiresAt - now
        // Round towards the past so "0 s left" never shows for an expired entry.
        return left >= 0 ? left / millisecondsPerSecond : -((-left + millisecondsPerSecond - 1) / millisecondsPerSecond)
    }

    public var description: String {
        let answer = isNegative ? "negative" : addresses.map(\.description).joined(separator: ",")
        return "\(answer) ttl=\(ttl) source=\(source)"
    }
}
