/// When the `preresolve` names are fetched again, whether or not a request uses them.
///
/// Each answer stored for such a name sets its next fetch at the cache's refresh point (75% of the TTL
/// it has left), so a request never finds it expired. Every other name is renewed only by the lookups
/// that use it (`ResolverCache.lookup` asks for a refresh past the refresh point), so a name nobody uses
/// any more is left to expire. A fetch that fails sets no next one: the name then waits for its lookups,
/// like any other.
///
/// Time comes in as `now`; the resolver thread sets one timer for `nextDue` and asks `due(at:)` when it
/// fires, so tests advance a number instead of waiting.
public struct KeepWarmSchedule: Sendable {
    /// Never re-fetch a preresolved name more often than this, whatever its TTL.
    public static let minimumDelayMillis: Int64 = 1_000

    /// The names kept warm (`[resolver] preresolve`).
    public let names: Set<String>
    /// When each kept-warm name is fetched next; a name is absent while no fetch is planned.
    private var dueAt: [String: CacheInstant] = [:]

    public init(names: some Sequence<String>) {
        self.names = Set(names)
    }

    /// An answer for `name` was stored at `now`, usable for `secondsLeft` more seconds per address family
    /// (what the cache says right after storing it): returns when the name is fetched next, replacing
    /// any earlier plan, or nil when the name is not kept warm. The family that runs out first decides.
    @discardableResult
    public mutating func answered(_ name: String, secondsLeft: SecondsLeftByFamily,
                                  now: CacheInstant) -> CacheInstant? {
        guard names.contains(name) else { return nil }
        let left = secondsLeft.soonest ?? 0
        let delay = max(Self.minimumDelayMillis,
                        left * millisecondsPerSecond * ResolverCache.refreshPointPercent / 100)
        dueAt[name] = now + delay
        return now + delay
    }

    /// The earliest planned fetch, for the one timer that waits for it; nil when none is planned.
    public var nextDue: CacheInstant? { dueAt.values.min() }

    /// When `name` is fetched next, if a fetch is planned.
    public func nextFetch(of name: String) -> CacheInstant? { dueAt[name] }

    /// The names whose fetch is due at `now`, sorted; each is handed out once, and planned again only
    /// by its next answer.
    public mutating func due(at now: CacheInstant) -> [String] {
        let names = dueAt.filter { $0.value <= now }.keys.sorted()
        for name in names { dueAt.removeValue(forKey: name) }
        return names
    }

    /// Forgets every planned fetch (the engine that kept them was replaced or stops).
    public mutating func removeAll() {
        dueAt.removeAll()
    }
}
