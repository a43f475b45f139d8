/// One name lookup as the query log keeps it: a query to the DNS listener, or a lookup the proxy made for a
/// request. Kept as values (addresses, not their text) so writing it costs a worker next to nothing; the
/// admin listener renders it.
public struct QueryLogEntry: Sendable, Equatable {
    /// Who asked.
    public enum Origin: String, Sendable {
        /// A client of the DNS listener (`[dns] listen`).
        case dns
        /// A request through the proxy.
        case proxy
    }

    public var origin: Origin
    /// Monotonic microseconds at the answer: orders entries of different workers, whose wall clocks agree
    /// but may step.
    public var monotonicMicros: Int64
    /// Wall-clock milliseconds at the answer, for people.
    public var unixMillis: Int64
    public var client: SocketAddress?
    public var name: String
    /// `A`, `AAAA`, ... for the listener; `A+AAAA` for the proxy, which asks for both families.
    public var type: String
    /// Where the answer came from: a provider's name, `cache:P`, `stale:P`, `hosts`, `system`, or `local`
    /// for names the listener answers itself; `-` when nothing answered.
    public var source: String
    /// The RCODE sent (`NOERROR`, `NXDOMAIN`, ...); for the proxy, the RCODE its lookup amounts to.
    public var outcome: String
    /// Why, when the lookup failed or was answered locally.
    public var detail: String?
    public var addresses: [IPAddress]
    public var elapsedMicros: Int64
    /// Later proxy lookups that repeated this one and were counted in it rather than listed; the times,
    /// client and elapsed time are the newest one's.
    public var repeats = 0

    public init(origin: Origin, monotonicMicros: Int64, unixMillis: Int64, client: SocketAddress?, name: String,
                type: String, source: String, outcome: String, detail: String? = nil, addresses: [IPAddress],
                elapsedMicros: Int64) {
        self.origin = origin
        self.monotonicMicros = monotonicMicros
        self.unixMillis = unixMillis
        self.client = client
        self.name = name
        self.type = type
        self.source = source
        self.outcome = outcome
        self.detail = detail
        self.addresses = addresses
        self.elapsedMicros = elapsedMicros
    }

    /// The `type` of a proxy lookup.
    public static let proxyLookupType = "A+AAAA"
    /// The `source` of an answer the listener makes up itself (localhost, local-use names, the canary).
    public static let localSource = "local"
    /// The `source` when no source answered.
    public static let noSource = "-"
}

extension QueryLogEntry {
    /// The proxy's lookup of `name` for a request, with the outcome put in DNS terms.
    public static func proxyLookup(_ result: Result<Resolution, ResolveFailure>, name: String, client: SocketAddress?,
                                   monotonicMicros: Int64, unixMillis: Int64, elapsedMicros: Int64,
                                   repeats: Int = 0) -> QueryLogEntry {
        var entry = QueryLogEntry(origin: .proxy, monotonicMicros: monotonicMicros, unixMillis: unixMillis, client: client,
                                  name: HostName.normalized(name), type: proxyLookupType, source: noSource,
                                  outcome: DNSExtendedResponseCode.noError.description, addresses: [],
                                  elapsedMicros: elapsedMicros)
        entry.repeats = repeats
        switch result {
        case .success(let resolution):
            entry.source = resolution.sourceLabel
            entry.addresses = resolution.addresses
        case .failure(let failure):
            entry.outcome = (failure.reason == .notFound ? DNSExtendedResponseCode.nameError
                                                         : .serverFailure).description
            entry.detail = failure.reasonText
        }
        return entry
    }
}
