/// How the body of a response is delimited (RFC 9112 §6.3).
public enum ResponseBodyFraming: Sendable, Equatable {
    case none
    case contentLength(UInt64)
    case chunked
    /// No length: the body ends when the server closes, so the connection cannot be reused.
    case untilClose
}

extension ResponseBodyFraming: CustomStringConvertible {
    public var description: String {
        switch self {
        case .none: return "none"
        case .contentLength(let length): return "content-length \(length)"
        case .chunked: return "chunked"
        case .untilClose: return "until-close"
        }
    }
}

/// A parsed response head. Ranges are offsets into the buffer that was parsed.
public struct ResponseHead: Sendable {
    public var status: Int
    public var version: HTTPVersion
    /// The reason-phrase, possibly empty.
    public var reason: Range<Int>
    public var fields: [HeaderField]
    /// RFC 9112 §6.3 using the request method: HEAD, 1xx, 204, 304 -> none.
    /// A 2xx answer to CONNECT starts a tunnel and is reported as none.
    public var framing: ResponseBodyFraming
    /// RFC 9112 §9.3, and false whenever the body runs until close.
    public var keepAlive: Bool
    /// Lower-cased Connection tokens that may name a field to remove (`HeadFieldSummary.connectionTokens`).
    public var connectionTokens: [String]
    /// Bytes of the head including the final CRLF CRLF.
    public var headLength: Int
    /// Whether some Connection token names a field that is not hop-by-hop anyway, so a rewriter must compare
    /// field names with the tokens. The parser knows; a head built from its parts assumes so when it has tokens.
    var connectionNamesOtherFields: Bool

    public init(status: Int, version: HTTPVersion, reason: Range<Int>, fields: [HeaderField],
                framing: ResponseBodyFraming, keepAlive: Bool, connectionTokens: [String], headLength: Int)
    {
        self.status = status
        self.version = version
        self.reason = reason
        self.fields = fields
        self.framing = framing
        self.keepAlive = keepAlive
        self.connectionTokens = connectionTokens
        self.headLength = headLength
        self.connectionNamesOtherFields = !connectionTokens.isEmpty
    }
}

public enum ResponseHeadParseResult: Sendable {
    /// No complete head yet and the buffer is within the limits: read more.
    case incomplete
    case complete(ResponseHead)
    /// The upstream sent something unusable: answer 502 and drop the upstream connection.
    case invalid(HTTPParseError)
}

extension ResponseHeadParseResult: CustomStringConvertible {
    public var description: String {
        switch self {
        case .incomplete: return "incomplete"
        case .complete(let head): return "complete \(head.version) \(head.status) \(head.framing)"
        case .invalid(let error): return "invalid \(error)"
        }
    }
}
