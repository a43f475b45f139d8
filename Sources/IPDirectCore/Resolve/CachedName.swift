/// What the resolver cache says about a name for both address families at once.
///
/// A request needs every address of a name, so the A and AAAA entries are read together: the name is
/// answered from the cache when at least one family has addresses and the other is known (or missing, in
/// which case it is fetched in the background), and asked of the sources otherwise.
public enum CachedName: Sendable, Equatable, CustomStringConvertible {
    /// Nothing usable: ask the sources and wait for them.
    case miss
    /// Answer with these addresses now; start one background refresh when `refresh` is set.
    case addresses(Resolution, refresh: Bool)
    /// Both families are cached as having no address (RFC 2308 negative answers).
    case negative(source: ResolutionSource, nameDoesNotExist: Bool)

    /// Read for every request and DNS query, so it builds nothing but the answer: no arrays of the
    /// two families on the way.
    public init(v4: CacheLookup, v6: CacheLookup, now: CacheInstant) {
        let answer4 = v4.answer, answer6 = v6.answer
        guard answer4 != nil || answer6 != nil else {
            self = .miss
            return
        }
        let positive4 = answer4.flatMap { $0.isNegative ? nil : $0 }
        let positive6 = answer6.flatMap { $0.isNegative ? nil : $0 }
        guard let first = positive4 ?? positive6 else {
            // Only "no address" is known; with one family unknown the name must be asked.
            guard let negative4 = answer4, let negative6 = answer6 else {
                self = .miss
                return
            }
            self = .negative(source: ResolutionSource(cacheLabel: negative4.source),
                             nameDoesNotExist: negative4.nameDoesNotExist || negative6.nameDoesNotExist)
            return
        }
        var secondsLeft = SecondsLeftByFamily()
        secondsLeft.v4 = answer4?.secondsLeft(at: now)
        secondsLeft.v6 = answer6?.secondsLeft(at: now)
        let age = max(positive4?.age(at: now) ?? 0, positive6?.age(at: now) ?? 0)
        let servedStale = (positive4 != nil && Self.isStale(v4)) || (positive6 != nil && Self.isStale(v6))
        let refresh = answer4 == nil || answer6 == nil || Self.asksForRefresh(v4) || Self.asksForRefresh(v6)
        let addresses: [IPAddress]
        switch (positive4, positive6) {
        case let (.some(four), .some(six)): addresses = four.addresses + six.addresses
        default: addresses = first.addresses
        }
        let resolution = Resolution(
            addresses: addresses,
            source: ResolutionSource(cacheLabel: first.source),
            cache: servedStale ? .stale(ageMillis: age) : .hit(ageMillis: age),
            secondsLeft: secondsLeft)
        self = .addresses(resolution, refresh: refresh)
    }

    private static func isStale(_ lookup: CacheLookup) -> Bool {
        if case .stale = lookup { return true }
        return false
    }

    private static func asksForRefresh(_ lookup: CacheLookup) -> Bool {
        switch lookup {
        case .refreshDue, .stale(_, _, refresh: true): return true
        case .fresh, .stale(_, _, refresh: false), .miss: return false
        }
    }

    public var description: String {
        switch self {
        case .miss: return "miss"
        case .addresses(let resolution, let refresh):
            let list = resolution.addresses.map(\.description).joined(separator: ",")
            return "\(resolution.cache) \(list) source=\(resolution.source)\(refresh ? " refresh" : "")"
        case .negative(let source, let nameDoesNotExist):
            return "negative\(nameDoesNotExist ? " nxdomain" : "") source=\(source)"
        }
    }
}
