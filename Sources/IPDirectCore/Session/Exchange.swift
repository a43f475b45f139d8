/// The protocol a client connection speaks; the first byte tells (0x05, 0x04, anything else HTTP).
public enum SessionFrontEnd: Sendable, Equatable {
    case http
    case socks5
    case socks4
}

/// What a session knows about the request it is serving: where it goes, how far it got, and the
/// figures for its access-log line.
///
/// A class, owned by the state that serves it: the state and the log action hand the one object on
/// instead of copying its forty fields at every event (which cost a third of the request path).
/// It belongs to the thread of the session's loop, so its fields skip the dynamic exclusivity checks
/// (2.4k instructions per keep-alive request, callgrind).
public final class Exchange: Equatable {
    @exclusivity(unchecked) public var method: String
    @exclusivity(unchecked) public var methodKind: HTTPMethod
    @exclusivity(unchecked) public var scheme: URIScheme = .http
    /// "-" when the request named no upstream (an error answer, the PAC file).
    @exclusivity(unchecked) public var host: String
    @exclusivity(unchecked) public var port: UInt16
    @exclusivity(unchecked) public var isConnect: Bool
    /// The protocol the client spoke: an HTTP request, or a SOCKS5 / SOCKS4 CONNECT.
    @exclusivity(unchecked) public var frontEnd: SessionFrontEnd = .http
    /// The name the client authenticated as, when `[access] auth_file` asks for credentials.
    @exclusivity(unchecked) public var user: String?
    /// What the request asked for (`RequestHead.keepAlive`); whether the connection persists also depends
    /// on the response (`ResponsePersistence`).
    @exclusivity(unchecked) public var keepAlive: Bool
    @exclusivity(unchecked) public var upgradeRequested: Bool
    /// The request's version: an HTTP/1.0 client is kept only when told "Connection: keep-alive".
    @exclusivity(unchecked) public var clientVersion: HTTPVersion
    /// The rewritten request head, until it is handed to an upstream connection.
    @exclusivity(unchecked) public var upstreamHead: [UInt8] = []
    @exclusivity(unchecked) public var requestBody: BodyProgress = .complete
    /// The request came with a body: it cannot be sent again on a fresh connection.
    @exclusivity(unchecked) public var requestHadBody = false
    @exclusivity(unchecked) public var retriedOnFreshConnection = false
    @exclusivity(unchecked) public var responseTimeoutArmed = false
    /// Whether this response's first-byte time is worth the shared table's lock: only where the host
    /// has several addresses to rank.
    @exclusivity(unchecked) public var firstByteWanted = false

    @exclusivity(unchecked) public var source = "-"
    @exclusivity(unchecked) public var cacheAgeMillis: Int64?
    @exclusivity(unchecked) public var upstreamAddress = "-"
    @exclusivity(unchecked) public var status = 0
    @exclusivity(unchecked) public var note = ""
    @exclusivity(unchecked) public var startMicros: Int64
    @exclusivity(unchecked) public var resolveMicros: Int64 = 0
    @exclusivity(unchecked) public var connectMicros: Int64 = 0
    /// Whether a lookup / connect ended (either way), so its duration goes into the histogram.
    @exclusivity(unchecked) public var resolveFinished = false
    @exclusivity(unchecked) public var connectFinished = false
    /// From the request head to the final (or 101) response head.
    @exclusivity(unchecked) public var firstByteMicros: Int64?
    @exclusivity(unchecked) public var bytesFromClient: UInt64 = 0
    @exclusivity(unchecked) public var bytesToClient: UInt64 = 0
    /// Connection attempts started for this exchange (0 when a pooled connection carried it).
    @exclusivity(unchecked) public var connectAttempts = 0
    /// 1-based position of the address used in the plan's order, nil when none was used.
    @exclusivity(unchecked) public var addressRank: Int?
    /// When the lookup or the connect began, and when the whole request had been handed upstream.
    @exclusivity(unchecked) public var resolveStartMicros: Int64 = 0
    @exclusivity(unchecked) public var connectStartMicros: Int64 = 0
    @exclusivity(unchecked) public var requestSentMicros: Int64?

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

    /// The same exchange (it is an object that events change as the request moves on).
    public static func == (left: Exchange, right: Exchange) -> Bool { left === right }

    /// The placeholder an error answer logs when no request head could be read.
    static func unparsed(at now: Int64) -> Exchange {
        Exchange(method: "-", methodKind: .other, host: "-", port: 0, isConnect: false, keepAlive: false,
                 upgradeRequested: false, clientVersion: .http11, startMicros: now)
    }

    public var hostPort: String {
        if host == "-" { return "-" }
        return HostName.withPort(host, port)
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
