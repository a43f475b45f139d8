import IPDirectCore

/// Progress through one message body. Bodies stream through without entering Swift; this only
/// tracks how many bytes may still pass and when the message ends.
enum BodyProgress {
    /// Nothing (more) to forward.
    case complete
    /// A Content-Length body with this many bytes still to pass.
    case remaining(UInt64)
    /// A chunked body, forwarded with its framing; the scanner finds the end.
    case chunked(ChunkedBodyScanner)
    /// A response delimited by the server closing the connection (RFC 9112 §6.3 rule 8).
    case untilClose

    init(_ framing: RequestBodyFraming) {
        switch framing {
        case .none, .contentLength(0): self = .complete
        case .contentLength(let length): self = .remaining(length)
        case .chunked: self = .chunked(ChunkedBodyScanner())
        }
    }

    init(_ framing: ResponseBodyFraming) {
        switch framing {
        case .none, .contentLength(0): self = .complete
        case .contentLength(let length): self = .remaining(length)
        case .chunked: self = .chunked(ChunkedBodyScanner())
        case .untilClose: self = .untilClose
        }
    }

    var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }
}

/// What a session knows about the request it is serving: where it goes, how far it got, and the
/// figures for its access-log line.
struct Exchange {
    var method: String
    var methodKind: HTTPMethod
    var scheme: URIScheme = .http
    var host: String
    var port: UInt16
    var isConnect: Bool
    /// What the request asked for (`RequestHead.keepAlive`); whether the connection persists also depends
    /// on the response (`ResponsePersistence`).
    var keepAlive: Bool
    var upgradeRequested: Bool
    /// The rewritten request head to send once an upstream connection exists.
    var upstreamHead: [UInt8] = []
    var requestBody: BodyProgress = .complete
    var requestHadBody = false
    var responseBody: BodyProgress = .complete
    /// A final (non-1xx) response head has been sent to the client: errors can no longer be answered.
    var responseStarted = false
    var receivedResponseBytes = false
    var upstreamKeepAlive = false
    var closeClientAfter = false
    var retriedOnFreshConnection = false
    var responseTimeoutArmed = false
    var interimResponses = 0

    var source = "-"
    var cacheAgeMillis: Int64?
    var upstreamAddress = "-"
    var status = 0
    var note = ""
    var startMicros: Int64
    /// The request's version: an HTTP/1.0 client is kept only when told "Connection: keep-alive".
    var clientVersion: HTTPVersion = .http11
    var resolveMicros: Int64 = 0
    var connectMicros: Int64 = 0
    /// Whether a lookup / connect ended (either way), so its duration goes into the histogram.
    var resolveFinished = false
    var connectFinished = false
    /// From the request head to the final (or 101) response head.
    var firstByteMicros: Int64?
    var bytesFromClient: UInt64 = 0
    var bytesToClient: UInt64 = 0
    /// Connection attempts started for this exchange (0 when a pooled connection carried it).
    var connectAttempts = 0
    /// 1-based position of the address used in the plan's order, nil when none was used.
    var addressRank: Int?
    /// When the whole request had been handed to the upstream, for its time-to-first-byte sample.
    var requestSentMicros: Int64?
    /// Whether this response's first-byte time is worth the shared table's lock: only where the host
    /// has several addresses to rank; set once the sample is taken, so it is taken once.
    var firstByteWanted = false

    var hostPort: String {
        if host == "-" { return "-" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    var poolKey: String { UpstreamPool.key(scheme: scheme, host: host, port: port) }

    /// Where what this host taught about its addresses is kept.
    var hostKey: UpstreamHostKey { UpstreamHostKey(host: host, port: port) }
}
