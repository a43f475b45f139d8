/// Providers that just failed (no answer from any bootstrap address: down, timing out, erroring or
/// answering garbage) are asked after the others for a while, so one dead endpoint does not cost every
/// new name its timeout. A demoted provider is still asked when the ones before it fail, and its first
/// answer restores it. The demotion doubles on each failure in a row, up to a limit.
///
/// Providers are their indices in `[[resolver.httpdns]]`, as `HTTPDNSProviderSelection` numbers them;
/// time comes in as `now`.
public struct ProviderDemotions: Sendable {
    /// How long a provider stays at the back after its first failure.
    public static let initialMillis: Int64 = 10_000
    /// The longest demotion, however often it failed.
    public static let maximumMillis: Int64 = 300_000

    private var demoted: [Int: (until: CacheInstant, lengthMillis: Int64)] = [:]

    public init() {}

    /// Whether `provider` is at the back at `now`.
    public func isDemoted(_ provider: Int, now: CacheInstant) -> Bool {
        (demoted[provider]?.until ?? 0) > now
    }

    /// The providers at the back at `now`, for `HTTPDNSProviderSelection.order(for:demoted:)`.
    public func demoted(now: CacheInstant) -> Set<Int> {
        Set(demoted.keys.filter { isDemoted($0, now: now) })
    }

    /// `provider` failed at `now`: returns how long it is demoted for, in milliseconds.
    @discardableResult
    public mutating func failed(_ provider: Int, now: CacheInstant) -> Int64 {
        let length = demoted[provider].map { min($0.lengthMillis * 2, Self.maximumMillis) } ?? Self.initialMillis
        demoted[provider] = (now + length, length)
        return length
    }

    /// `provider` answered: returns whether that ended a demotion (the next failure starts from
    /// `initialMillis` again).
    @discardableResult
    public mutating func answered(_ provider: Int) -> Bool {
        demoted.removeValue(forKey: provider) != nil
    }
}
