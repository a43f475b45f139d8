/// How the body of a request is delimited (RFC 9112 §6.3).
public enum RequestBodyFraming: Sendable, Equatable {
    case none
    case contentLength(UInt64)
    case chunked
}

extension RequestBodyFraming: CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "none"
        case .contentLength(let length): return "content-length \(length)"
        case .chunked: return "chunked"
        }
    }
}

/// A parsed request head. Ranges are offsets into the buffer that was parsed.
public struct RequestHead: Sendable {
    public var method: HTTPMethod
    public var methodBytes: Range<Int>
    public var target: RequestTarget
    public var version: HTTPVersion
    public var fields: [HeaderField]
    public var framing: RequestBodyFraming
    /// RFC 9112 §9.3: 1.1 unless "close"; 1.0 only with "keep-alive".
    public var keepAlive: Bool
    /// Lower-cased Connection tokens that may name a field to remove (`HeadFieldSummary.connectionTokens`).
    public var connectionTokens: [String]
    /// Expect: 100-continue on an HTTP/1.1 request (RFC 9110 §10.1.1 ignores it on 1.0).
    public var expectsContinue: Bool
    /// An Upgrade field AND "upgrade" among the connection tokens, on HTTP/1.1 (RFC 9110 §7.8).
    public var upgradeRequested: Bool
    /// Bytes of the head including the final CRLF CRLF; any bytes after it belong to the body or the
    /// next pipelined request.
    public var headLength: Int
    /// Whether some Connection token names a field that is not hop-by-hop anyway, so a rewriter must compare
    /// field names with the tokens. The parser knows; a head built from its parts assumes so when it has tokens.
    var connectionNamesOtherFields: Bool

    public init(method: HTTPMethod, methodBytes: Range<Int>, target: RequestTarget, version: HTTPVersion,
                fields: [HeaderField], framing: RequestBodyFraming, keepAlive: Bool, connectionTokens: [String],
                expectsContinue: Bool, upgradeRequested: Bool, headLength: Int)
    {
        self.method = method
        self.methodBytes = methodBytes
        self.target = target
        self.version = version
        self.fields = fields
        self.framing = framing
        self.keepAlive = keepAlive
        self.connectionTokens = connectionTokens
        self.expectsContinue = expectsContinue
        self.upgradeRequested = upgradeRequested
        self.headLength = headLength
        self.connectionNamesOtherFields = !connectionTokens.isEmpty
    }
}

public enum RequestHeadParseResult: Sendable {
    /// No complete head yet and the buffer is within the limits: read more.
    case incomplete
    case complete(RequestHead)
    /// Answer `status` and close the connection.
    case invalid(HTTPParseError)
}

extension RequestHeadParseResult: CustomStringConvertible {
    public var description: String {
        switch self {
        case .incomplete: return "incomplete"
        case .complete(let head): return "complete \(head.method) \(head.target) \(head.version)"
        case .invalid(let error): return "invalid \(error)"
        }
    }
}
