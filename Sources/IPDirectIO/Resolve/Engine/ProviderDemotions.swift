import IPDirectCore

/// Providers that just failed (no answer from any bootstrap address: down, timing out, erroring or
/// answering garbage) are asked after the others for a while, so one dead endpoint does not cost every
/// new name its timeout. A demoted provider is still asked when the ones before it fail, and its first
/// answer restores it. The demotion doubles on each failure in a row, up to a limit.
struct ProviderDemotions {
    /// How long a provider stays at the back after its first failure.
    static let initialMillis: Int64 = 10_000
    /// The longest demotion, however often it failed.
    static let maximumMillis: Int64 = 300_000

    private var demoted: [ObjectIdentifier: (until: CacheInstant, lengthMillis: Int64)] = [:]

    /// `providers` in configured order, the ones demoted at `now` moved (in their order) behind the rest.
    func ordered(_ providers: [HTTPDNSSource], now: CacheInstant) -> [HTTPDNSSource] {
        guard !demoted.isEmpty else { return providers }
        return providers.filter { !isDemoted($0, now: now) } + providers.filter { isDemoted($0, now: now) }
    }

    /// Whether `provider` is at the back at `now`.
    func isDemoted(_ provider: HTTPDNSSource, now: CacheInstant) -> Bool {
        (demoted[ObjectIdentifier(provider)]?.until ?? 0) > now
    }

    mutating func failed(_ provider: HTTPDNSSource, reason: String, now: CacheInstant) {
        let key = ObjectIdentifier(provider)
        let length = demoted[key].map { min($0.lengthMillis * 2, Self.maximumMillis) } ?? Self.initialMillis
        demoted[key] = (now + length, length)
        Logger.warning("event=httpdns_provider_demoted provider=\(provider.name) for_ms=\(length) reason=\"\(reason)\"")
    }

    mutating func answered(_ provider: HTTPDNSSource) {
        if demoted.removeValue(forKey: ObjectIdentifier(provider)) != nil {
            Logger.info("event=httpdns_provider_restored provider=\(provider.name)")
        }
    }
}
