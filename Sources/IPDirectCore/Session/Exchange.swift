/// What a session knows about the request it is serving: where it goes, how far it got, and the
/// figures for its access-log line.
public struct Exchange: Sendable, Equatable {
    public var method: String
    public var methodKind: HTTPMethod
    public var scheme: URIScheme = .http
    /// "-" when the request named no upstream (an error answer, the PAC file).
    public var host: String
    public var port: UInt16
    public var isConnect: Bool
    /// What the request asked for (`RequestHead.keepAlive`); whether the connection persists also depends
    /// on the response (`ResponsePersistence`).
    public var keepAlive: Bool
    public var upgradeRequested: Bool
    /// The request's version: an HTTP/1.0 client is kept only when told "Connection: keep-alive".
    public var clientVersion: HTTPVersion
    /// The rewritten request head, until it is handed to an upstream connection.
    public var upstreamHead: [UInt8] = []
    public var requestBody: BodyProgress = .complete
    /// The request came with a body: it cannot be sent again on a fresh connection.
    public var requestHadBody = false
    public var retriedOnFreshConnection = false
    public var responseTimeoutArmed = false
    /// Whether this response's first-byte time is worth the shared table's lock: only where the host
    /// has several addresses to rank.
    public var firstByteWanted = false

    public var source = "-"
    public var cacheAgeMillis: Int64?
    public var upstreamAddress = "-"
    public var status = 0
    public var note = ""
    public var startMicros: Int64
    public var resolveMicros: Int64 = 0
    public var connectMicros: Int64 = 0
    /// Whether a lookup / connect ended (either way), so its duration goes into the histogram.
    public var resolveFinished = false
    public var connectFinished = false
    /// From the request head to the final (or 101) response head.
    public var firstByteMicros: Int64?
    public var bytesFromClient: UInt64 = 0
    public var bytesToClient: UInt64 = 0
    /// Connection attempts started for this exchange (0 when a pooled connection carried it).
    public var connectAttempts = 0
    /// 1-based position of the address used in the plan's order, nil when none was used.
    public var addressRank: Int?
    /// When the lookup or the connect began, and when the whole request had been handed upstream.
    public var resolveStartMicros: Int64 = 0
    public var connectStartMicros: Int64 = 0
    public var requestSentMicros: Int64?

    public init(method: String, methodKind: HTTPMethod, host: String, port: UInt16, isConnect: Bool,
                keepAlive: Bool, upgradeRequested: Bool, clientVersion: HTTPVersion, startMicros: Int64) {
        self.method = method
        self.methodKind = methodKind
        self.host = host
        self.port = port
        self.isConnect = isConnect
        self.keepAlive = keepAlive
        self.upgradeRequested = upgradeRequested
        self.clientVersion = clientVersion
        self.startMicros = startMicros
    }

    /// The placeholder an error answer logs when no request head could be read.
    static func unparsed(at now: Int64) -> Exchange {
        Exchange(method: "-", methodKind: .other, host: "-", port: 0, isConnect: false, keepAlive: false,
                 upgradeRequested: false, clientVersion: .http11, startMicros: now)
    }

    public var hostPort: String {
        if host == "-" { return "-" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Connections are pooled per scheme, host and port: a TLS connection verified for one name never
    /// carries another's requests.
    public var poolKey: String { Exchange.poolKey(scheme: scheme, host: host, port: port) }

    public static func poolKey(scheme: URIScheme, host: String, port: UInt16) -> String {
        "\(scheme == .https ? "https" : "http")://\(host):\(port)"
    }

    /// Where what this host taught about its addresses is kept.
    public var hostKey: UpstreamHostKey { UpstreamHostKey(host: host, port: port) }
}
