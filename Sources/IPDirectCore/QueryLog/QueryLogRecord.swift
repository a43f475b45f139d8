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
                                elapsedMicros: lookup.elapsedMicros)
        case .written(let entry):
            return entry
        }
    }
}
