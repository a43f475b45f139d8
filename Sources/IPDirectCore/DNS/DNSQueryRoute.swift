/// Where a query to the DNS listener goes: looked up as the proxy looks names up, or answered at once.
public enum DNSQueryRoute: Equatable, Sendable {
    /// Looked up through `[hosts]`, the cache and the sources; `families` are the ones the answer holds.
    case lookUp(host: String, families: [AddressFamily])
    /// Answered now; `note` says why, for the query log.
    case answer(DNSResponseMessage, note: String)
    /// A loop probe of ipdirect's own (`DNSLoopGuard`): answered NXDOMAIN now, never looked up, and reported
    /// to the guard.
    case loopProbe(host: String, response: DNSResponseMessage)
    /// Relayed to the plain-DNS `forward` servers, in order: a name of the local network, which only
    /// they know.
    case forward(to: [SocketAddress], note: String)
    /// A type the proxy's resolver has no answer for: relayed to a DoH provider that serves `host`, else to
    /// `fallback` (the `forward` servers), else REFUSED. `https` says what to do with HTTPS/SVCB records.
    case relay(host: String, fallback: [SocketAddress], https: DNSHTTPSRecords, note: String)
}

/// Decides, for each query, whether HTTPDNS may hear of its name. Names that only mean something on this
/// machine or network never leave it (RFC 6761, 6762, 7686, 8375; private reverse zones as RFC 6303 and
/// dnsmasq's `--bogus-priv`), nor do `[resolver] bypass` names: those go to the `forward` servers when
/// there are some, and get NXDOMAIN otherwise.
public struct DNSQueryRouter: Sendable {
    public let settings: DNSSettings
    public let bypass: [HostPattern]

    public init(settings: DNSSettings, bypass: [HostPattern]) {
        self.settings = settings
        self.bypass = bypass
    }

    /// Suffixes of names that are never asked of HTTPDNS (without the leading dot); the `forward`
    /// servers may know them.
    static let localSuffixes = ["local", "home.arpa"]
    /// Suffixes that no server may be asked about: NXDOMAIN always (RFC 7686 §2 for .onion, RFC 6761 §6.4
    /// for .invalid).
    static let nonexistentSuffixes = ["onion", "invalid"]
    /// Query types that are not questions about a name's records: zone transfers (AXFR, IXFR), the
    /// obsolete MAILB/MAILA, and OPT, which is never a question (RFC 6891 §6.1.1).
    static let unrelayedTypes: Set<UInt16> = [DNSType.opt, 251, 252, 253, 254]

    public func route(_ query: DNSQueryMessage) -> DNSQueryRoute {
        guard let host = query.name.hostName else {
            return .answer(query.response(rcode: .refused), note: "name holds octets no host name has")
        }
        if DNSLoopGuard.isProbeName(host) {
            return .loopProbe(host: host, response: negative(query, .nameError))
        }
        if host == "localhost" || host.hasSuffix(".localhost") {
            return .answer(localhost(query), note: "localhost (RFC 6761)")
        }
        if settings.firefoxCanary, host == DNSSettings.firefoxCanaryName {
            return .answer(negative(query, .nameError), note: "Firefox DoH canary")
        }
        if let suffix = Self.nonexistentSuffixes.first(where: { host == $0 || host.hasSuffix("." + $0) }) {
            return .answer(negative(query, .nameError), note: "special-use name (.\(suffix))")
        }
        if query.type == DNSType.ptr, let reverse = ReverseName(host), reverse.isPrivate {
            return local(query, reason: "reverse lookup of a private range")
        }
        if let reason = neverAskedReason(host) {
            return local(query, reason: reason)
        }
        switch query.type {
        case DNSType.a: return .lookUp(host: host, families: [.v4])
        case DNSType.aaaa: return .lookUp(host: host, families: [.v6])
        // RFC 8482 §4.1: a subset of what there is; the addresses are what ipdirect has.
        case DNSType.any: return .lookUp(host: host, families: [.v4, .v6])
        case DNSType.https, DNSType.svcb:
            // Their address hints would bypass the ranking (RFC 9460 §7.3): the client falls back to A and AAAA.
            guard settings.httpsRecords != .empty else {
                return .answer(negative(query, .noError), note: "HTTPS and SVCB are answered empty")
            }
            return .relay(host: host, fallback: settings.forward, https: settings.httpsRecords,
                          note: "HTTPS/SVCB relayed (\(settings.httpsRecords.rawValue))")
        case _ where Self.unrelayedTypes.contains(query.type):
            return .answer(query.response(rcode: .refused), note: "type \(DNSType.name(query.type)) is not served")
        default:
            guard settings.otherTypes == .forward else {
                return .answer(query.response(rcode: .refused), note: "only A, AAAA and ANY are served")
            }
            return .relay(host: host, fallback: settings.forward, https: settings.httpsRecords, note: "other type relayed")
        }
    }

    /// A name only the local network knows: asked of the `forward` servers, or NXDOMAIN without them.
    private func local(_ query: DNSQueryMessage, reason: String) -> DNSQueryRoute {
        guard settings.forward.isEmpty else { return .forward(to: settings.forward, note: reason) }
        return .answer(negative(query, .nameError), note: reason)
    }

    private func neverAskedReason(_ host: String) -> String? {
        if !host.contains(".") { return "single-label name" }
        if let suffix = Self.localSuffixes.first(where: { host == $0 || host.hasSuffix("." + $0) }) {
            return "local-use name (.\(suffix))"
        }
        if bypass.contains(where: { $0.matches(host) }) { return "resolver.bypass" }
        return nil
    }

    private func localhost(_ query: DNSQueryMessage) -> DNSResponseMessage {
        var response = query.response()
        let ttl = UInt32(settings.hostsTTLSeconds)
        if query.type == DNSType.a || query.type == DNSType.any {
            response.answers.append(.address(.v4(0x7F00_0001), owner: query.name, ttl: ttl))
        }
        if query.type == DNSType.aaaa || query.type == DNSType.any {
            response.answers.append(.address(.v6(0, 1), owner: query.name, ttl: ttl))
        }
        if response.answers.isEmpty { response.authority = [.negativeAnswerSOA(owner: query.name, ttl: ttl)] }
        return response
    }

    /// NXDOMAIN, or NODATA with `.noError`: no answer and a made-up SOA (RFC 2308 §2).
    func negative(_ query: DNSQueryMessage, _ rcode: DNSExtendedResponseCode) -> DNSResponseMessage {
        var response = query.response(rcode: rcode)
        response.authority = [.negativeAnswerSOA(owner: query.name, ttl: UInt32(settings.negativeTTLSeconds))]
        return response
    }
}
