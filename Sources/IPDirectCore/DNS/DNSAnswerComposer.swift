/// Turns the proxy's answer for a name into the DNS listener's response: the addresses of the families
/// asked in the order given (the ranking's), the rebinding guard, `max_addresses`, the TTL rules, and
/// negative answers as RFC 2308 writes them.
public struct DNSAnswerComposer: Sendable {
    public let settings: DNSSettings
    public let allowPrivateUpstreams: Bool

    public init(settings: DNSSettings, allowPrivateUpstreams: Bool) {
        self.settings = settings
        self.allowPrivateUpstreams = allowPrivateUpstreams
    }

    /// A response and what it dropped.
    public struct Composed: Equatable, Sendable {
        public var response: DNSResponseMessage
        /// Non-public addresses left out of a public name's answer (DNS rebinding guard).
        public var rebindingDrops = 0
    }

    /// `result.addresses` must already be in the order to hand out, best first.
    public func compose(_ query: DNSQueryMessage, families: [AddressFamily],
                        _ result: Result<Resolution, ResolveFailure>) -> Composed {
        let router = DNSQueryRouter(settings: settings, bypass: [])
        let resolution: Resolution
        switch result {
        case .failure(let failure):
            switch failure.reason {
            case .notFound: return Composed(response: router.negative(query, .nameError))
            case .noAddresses: return Composed(response: router.negative(query, .noError))
            case .timeout, .failed: return Composed(response: query.response(rcode: .serverFailure))
            }
        case .success(let answered):
            resolution = answered
        }
        let guarded = !allowPrivateUpstreams && resolution.source != .hosts && resolution.source != .literal
        var composed = Composed(response: query.response())
        for family in families {
            var addresses = resolution.addresses.filter { $0.isIPv6 == (family == .v6) }
            if guarded {
                let before = addresses.count
                addresses.removeAll { $0.isNonPublic }
                composed.rebindingDrops += before - addresses.count
            }
            if settings.maxAddresses > 0 { addresses = Array(addresses.prefix(settings.maxAddresses)) }
            let ttl = ttl(resolution, family: family)
            composed.response.answers += addresses.map { DNSRecord.address($0, owner: query.name, ttl: ttl) }
        }
        if composed.response.answers.isEmpty {
            // The name exists (it has addresses of another family, or all were refused): NODATA, never
            // NXDOMAIN (RFC 4074 §3).
            composed.response = router.negative(query, .noError)
        }
        return composed
    }

    /// What is left of the cached answer, at most `max_ttl`; `stale_ttl` past expiry (RFC 8767 §4);
    /// `hosts_ttl` for answers ipdirect made up itself.
    func ttl(_ resolution: Resolution, family: AddressFamily) -> UInt32 {
        if resolution.source == .hosts || resolution.source == .literal { return UInt32(settings.hostsTTLSeconds) }
        if case .stale = resolution.cache { return UInt32(min(settings.staleTTLSeconds, settings.maxTTLSeconds)) }
        let left = resolution.secondsLeft[family] ?? Int64(settings.maxTTLSeconds)
        return UInt32(min(max(left, 1), Int64(settings.maxTTLSeconds)))
    }
}
