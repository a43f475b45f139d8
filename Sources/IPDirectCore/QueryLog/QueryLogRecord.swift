/// One lookup as a worker's ring keeps it. A proxy lookup, made for every request that names a host, is
/// kept as the values it already has (the name, the resolver's result, times) and put into words only
/// when `/queries` is read; the DNS listener's queries come already worded.
public enum QueryLogRecord: Sendable {
    /// A lookup the proxy made for a request.
    case proxyLookup(ProxyLookup)
    /// A query to the DNS listener.
    case written(QueryLogEntry)

    public struct ProxyLookup: Sendable {
        public var result: Result<Resolution, ResolveFailure>
        /// The host as the request named it.
        public var name: String
        public var client: SocketAddress?
        public var monotonicMicros: Int64
        public var unixMillis: Int64
        public var elapsedMicros: Int64
        /// Later lookups that repeated this one and were counted in it (`QueryLogRing.appendProxyLookup`);
        /// the times, client and elapsed time are the newest one's.
        public var repeats = 0

        public init(_ result: Result<Resolution, ResolveFailure>, name: String, client: SocketAddress?,
                    monotonicMicros: Int64, unixMillis: Int64, elapsedMicros: Int64) {
            self.result = result
            self.name = name
            self.client = client
            self.monotonicMicros = monotonicMicros
            self.unixMillis = unixMillis
            self.elapsedMicros = elapsedMicros
        }
    }

    /// The record in words, as `/queries` shows it.
    public var entry: QueryLogEntry {
        switch self {
        case .proxyLookup(let lookup):
            return .proxyLookup(lookup.result, name: lookup.name, client: lookup.client,
                                monotonicMicros: lookup.monotonicMicros, unixMillis: lookup.unixMillis,
                                elapsedMicros: lookup.elapsedMicros, repeats: lookup.repeats)
        case .written(let entry):
            return entry
        }
    }
}

extension QueryLogRecord.ProxyLookup {
    /// Whether this lookup says nothing `earlier` did not: the same name from the same client address (any
    /// port: each connection has its own), answered by the same source, from the cache or not alike, with
    /// the same addresses, or failed alike.
    public func isRepeat(of earlier: QueryLogRecord.ProxyLookup) -> Bool {
        guard name == earlier.name, client?.ip == earlier.client?.ip else { return false }
        switch result {
        case .success(let answer):
            guard case .success(let earlierAnswer) = earlier.result else { return false }
            return answer.addresses == earlierAnswer.addresses && answer.source == earlierAnswer.source
                && answer.cache.isSameUse(as: earlierAnswer.cache)
        case .failure(let failure):
            guard case .failure(let earlierFailure) = earlier.result else { return false }
            return failure == earlierFailure
        }
    }

    /// Counts `later` in this lookup when it `isRepeat(of:)` it; false when it is not.
    public mutating func countRepeat(_ later: QueryLogRecord.ProxyLookup) -> Bool {
        guard later.isRepeat(of: self) else { return false }
        repeats += 1 + later.repeats
        client = later.client
        monotonicMicros = later.monotonicMicros
        unixMillis = later.unixMillis
        elapsedMicros = later.elapsedMicros
        return true
    }
}
