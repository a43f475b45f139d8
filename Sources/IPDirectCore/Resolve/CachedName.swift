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

    public init(v4: CacheLookup, v6: CacheLookup, now: CacheInstant) {
        let found: [(AddressFamily, CacheLookup)] = [(.v4, v4), (.v6, v6)]
        let known = found.compactMap { family, lookup in lookup.answer.map { (family, lookup, $0) } }
        guard !known.isEmpty else {
            self = .miss
            return
        }
        let positive = known.filter { !$0.2.isNegative }
        guard let first = positive.first else {
            // Only "no address" is known; with one family unknown the name must be asked.
            self = known.count == found.count
                ? .negative(source: ResolutionSource(cacheLabel: known[0].2.source),
                            nameDoesNotExist: known.contains { $0.2.nameDoesNotExist })
                : .miss
            return
        }
        var secondsLeft: [AddressFamily: Int64] = [:]
        for (family, _, answer) in known { secondsLeft[family] = answer.secondsLeft(at: now) }
        let age = positive.map { $0.2.age(at: now) }.max() ?? 0
        let servedStale = positive.contains { if case .stale = $0.1 { true } else { false } }
        let refresh = known.count < found.count || known.contains { _, lookup, _ in
            switch lookup {
            case .refreshDue, .stale(_, _, refresh: true): return true
            case .fresh, .stale(_, _, refresh: false), .miss: return false
            }
        }
        let resolution = Resolution(
            addresses: positive.flatMap { $0.2.addresses },
            source: ResolutionSource(cacheLabel: first.2.source),
            cache: servedStale ? .stale(ageMillis: age) : .hit(ageMillis: age),
            secondsLeft: secondsLeft)
        self = .addresses(resolution, refresh: refresh)
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
