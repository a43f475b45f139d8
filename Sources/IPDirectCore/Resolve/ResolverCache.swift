/// Resolved answers by name and address family, with TTL clamping, negative
/// caching, a background-refresh point, a serve-stale window and LRU eviction.
///
/// A plain value owned by one event loop; it knows nothing of sessions or
/// providers. Time comes in as `now` on every call that needs it.
public struct ResolverCache: Sendable {
    /// An answer is refreshed in the background once this share of its TTL has
    /// passed, so names in steady use are renewed before they expire.
    public static let refreshPointPercent: Int64 = 75
    /// A refresh that has not replaced the answer after this long (it failed: every source was down) is
    /// asked for again, so an answer is renewed once its sources recover, while a name in steady use
    /// during an outage costs one query per this interval, not one per request.
    public static let refreshRetryMillis: Int64 = 10_000
    private static let percent: Int64 = 100

    public private(set) var settings: ResolverCacheSettings
    public private(set) var counters = ResolverCacheCounters()
    /// Counts changes to what a name's answer says (its addresses, source or negative kind, a removal, new
    /// limits); refreshes that bring the same answer and evictions of the least recently used do not
    /// count. The DNS listener's answer templates are made under one value and dropped at the next.
    public private(set) var answerChanges: UInt64 = 0
    private var entries: LRUStore<ResolverCacheKey, CachedAnswer>

    public init(settings: ResolverCacheSettings = ResolverCacheSettings()) {
        self.settings = settings
        self.entries = LRUStore(capacity: settings.maxEntries)
    }

    public var count: Int { entries.count }

    /// Looks `name` up for `family` and counts the outcome. A refresh-due answer is
    /// reported once; later lookups see it as fresh until it is replaced or expires.
    /// Answers past their stale window are dropped here.
    public mutating func lookup(_ name: String, family: AddressFamily, now: CacheInstant) -> CacheLookup {
        lookup(ResolverCacheKey(name: name, family: family), now: now)
    }

    /// As `lookup(_:family:now:)`, with a key made once for both families (`ResolverCacheKey.inFamily`).
    public mutating func lookup(_ key: ResolverCacheKey, now: CacheInstant) -> CacheLookup {
        guard let answer = entries.use(key) else {
            counters.misses += 1
            return .miss
        }
        let age = answer.age(at: now)
        switch phase(of: answer, at: now) {
        case .fresh:
            counters.hits += 1
            return .fresh(answer, age: age)
        case .refreshDue:
            counters.hits += 1
            guard let marked = markRefreshRequested(key, answer, now: now) else { return .fresh(answer, age: age) }
            return .refreshDue(marked, age: age)
        case .stale:
            counters.staleServes += 1
            guard let marked = markRefreshRequested(key, answer, now: now) else {
                return .stale(answer, age: age, refresh: false)
            }
            return .stale(marked, age: age, refresh: true)
        case .gone:
            entries.remove(key)
            counters.misses += 1
            return .miss
        }
    }

    /// What `lookup` would say, without counting it, asking for a refresh or changing recency: for the
    /// resolver thread checking whether a query that just ended already answered a waiting lookup.
    public func inspect(_ name: String, family: AddressFamily, now: CacheInstant) -> CacheLookup {
        guard let answer = entries.peek(ResolverCacheKey(name: name, family: family)) else { return .miss }
        let age = answer.age(at: now)
        switch phase(of: answer, at: now) {
        case .fresh: return .fresh(answer, age: age)
        case .refreshDue: return .refreshDue(answer, age: age)
        case .stale: return .stale(answer, age: age, refresh: true)
        case .gone: return .miss
        }
    }

    /// Marks `answer` as having asked for a refresh at `now` and returns it marked, unless a refresh was
    /// asked for less than `refreshRetryMillis` ago.
    private mutating func markRefreshRequested(_ key: ResolverCacheKey, _ answer: CachedAnswer,
                                               now: CacheInstant) -> CachedAnswer? {
        if let asked = answer.refreshRequestedAt, now - asked < Self.refreshRetryMillis { return nil }
        counters.refreshes += 1
        entries.update(key) { $0.refreshRequestedAt = now }
        var marked = answer
        marked.refreshRequestedAt = now
        return marked
    }

    /// The answer for `name` and `family` if it is still usable (fresh or inside its stale window),
    /// without counting a lookup, asking for a refresh or changing recency: what the resolver reads
    /// when every source failed and a stale answer is the last resort.
    public func peek(_ name: String, family: AddressFamily, now: CacheInstant) -> CachedAnswer? {
        guard let answer = entries.peek(ResolverCacheKey(name: name, family: family)) else { return nil }
        return phase(of: answer, at: now) == .gone ? nil : answer
    }

    /// RFC 8767 §4: when every source failed, what `requests` waiting lookups of `name` are answered with
    /// rather than an error: the addresses still inside their serve-stale window, marked stale with the
    /// age of the oldest, and counted as stale serves (one per request). Nil when no family has an address
    /// left to serve; negative answers are never served this way.
    public mutating func staleFallback(_ name: String, servedTo requests: Int, now: CacheInstant) -> Resolution? {
        let usable = AddressFamily.allCases.compactMap { family in peek(name, family: family, now: now).map { (family, $0) } }
        let positive = usable.filter { !$0.1.isNegative }
        guard let first = positive.first else { return nil }
        counters.staleServes += UInt64(requests)
        let age = positive.map { $0.1.age(at: now) }.max() ?? 0
        var secondsLeft = SecondsLeftByFamily()
        for (family, answer) in usable { secondsLeft[family] = answer.secondsLeft(at: now) }
        return Resolution(addresses: positive.flatMap { $0.1.addresses },
                          source: ResolutionSource(cacheLabel: first.1.source),
                          cache: .stale(ageMillis: age), secondsLeft: secondsLeft)
    }

    /// How long ago `name`'s addresses were fetched when they are past their TTL but inside the
    /// serve-stale window (what a lookup would now serve stale), the older family's; nil otherwise.
    public func staleAge(_ name: String, now: CacheInstant) -> Int64? {
        AddressFamily.allCases.compactMap { family -> Int64? in
            guard case .stale(let answer, let age, _) = inspect(name, family: family, now: now),
                  !answer.isNegative else { return nil }
            return age
        }.max()
    }

    /// Caches a positive answer, replacing any earlier one; the TTL is clamped to
    /// `[minTTL, maxTTL]`. An empty address list is cached as a negative answer.
    public mutating func insert(
        _ addresses: [IPAddress], ttl: UInt32, for name: String, family: AddressFamily,
        source: String, now: CacheInstant
    ) {
        guard !addresses.isEmpty else {
            insertNegative(for: name, family: family, source: source, now: now)
            return
        }
        let answer = CachedAnswer(addresses: addresses, source: source, fetchedAt: now,
                                  ttl: settings.clampedTTL(ttl))
        store(answer, for: ResolverCacheKey(name: name, family: family))
    }

    /// Caches "no such name" or "no data" for `negativeTTL` (RFC 2308 §5). The TTL
    /// is not clamped to `minTTL`: a name that starts to exist should show up soon.
    public mutating func insertNegative(for name: String, family: AddressFamily, source: String, now: CacheInstant,
                                        nameDoesNotExist: Bool = false) {
        var answer = CachedAnswer(addresses: [], source: source, fetchedAt: now, ttl: settings.negativeTTL)
        answer.nameDoesNotExist = nameDoesNotExist
        store(answer, for: ResolverCacheKey(name: name, family: family))
    }

    /// Takes new settings (a reload), keeping every entry that fits the new `maxEntries`, most recently used
    /// first, and the counters. Answers already cached keep the TTL they were given; the new limits apply
    /// to answers cached from now on.
    public mutating func resettle(_ newSettings: ResolverCacheSettings) {
        guard newSettings != settings else { return }
        let kept = entries.entriesByRecency
        answerChanges &+= 1
        settings = newSettings
        entries = LRUStore(capacity: newSettings.maxEntries)
        for (key, answer) in kept.prefix(newSettings.maxEntries).reversed() {
            _ = entries.set(key, answer)
        }
    }

    /// Forgets both families of `name`.
    public mutating func remove(_ name: String) {
        answerChanges &+= 1
        for family in AddressFamily.allCases {
            entries.remove(ResolverCacheKey(name: name, family: family))
        }
    }

    public mutating func removeAll() {
        answerChanges &+= 1
        entries.removeAll()
    }

    /// Every usable entry (fresh or stale) for the admin dump, sorted by name then
    /// family so dumps diff cleanly. Does not change recency or counters.
    public func snapshot(now: CacheInstant) -> [CacheSnapshotRow] {
        liveEntries(now: now)
            .map { key, answer in
                CacheSnapshotRow(name: key.name, family: key.family, addresses: answer.addresses,
                                 secondsLeft: answer.secondsLeft(at: now), source: answer.source)
            }
            .sorted { ($0.name, $0.family.rawValue) < ($1.name, $1.family.rawValue) }
    }

    /// Every entry still inside its stale window, most recently used first, for
    /// writing a cache file.
    func liveEntries(now: CacheInstant) -> [(key: ResolverCacheKey, answer: CachedAnswer)] {
        entries.entriesByRecency
            .filter { phase(of: $0.value, at: now) != .gone }
            .map { (key: $0.key, answer: $0.value) }
    }

    /// Where an answer stands at `now`.
    enum Phase: Equatable {
        case fresh, refreshDue, stale, gone
    }

    /// Negative answers are never refreshed early nor served stale: "no such name"
    /// is not worth keeping a user from a name that has just appeared.
    func phase(of answer: CachedAnswer, at now: CacheInstant) -> Phase {
        let age = answer.age(at: now)
        let ttl = Int64(answer.ttl) * millisecondsPerSecond
        if answer.isNegative {
            return age < ttl ? .fresh : .gone
        }
        if age * Self.percent < ttl * Self.refreshPointPercent { return .fresh }
        if age < ttl { return .refreshDue }
        if age < ttl + Int64(settings.serveStale) * millisecondsPerSecond { return .stale }
        return .gone
    }

    mutating func store(_ answer: CachedAnswer, for key: ResolverCacheKey) {
        let earlier = entries.peek(key)
        let same = earlier.map { $0.addresses == answer.addresses && $0.source == answer.source
            && $0.nameDoesNotExist == answer.nameDoesNotExist } ?? false
        if !same { answerChanges &+= 1 }
        if entries.set(key, answer) != nil {
            counters.evictions += 1
        }
    }
}
