/// Whether the client connection outlives a response, and what the response's Connection field says about it
/// (RFC 9112 §9.3).
///
/// The danger is on HTTP/1.0: persistence is not its default, so a 1.0 client that asked for keep-alive and got
/// a response without "Connection: keep-alive" reads it as "the server will close" and waits for a close that a
/// proxy keeping the connection never sends (ApacheBench's `ab -k` hangs exactly so). RFC 9112 Appendix C.2.2
/// lets a server keep such a connection only when it says so, and only when the client can find the end of the
/// body without a close: a 1.0 client knows Content-Length, not chunked (RFC 9112 §6.1).
public enum ResponsePersistence: Sendable, Equatable {
    /// The connection stays open and the response says nothing: HTTP/1.1's default (RFC 9112 §9.3).
    case persistent
    /// The connection stays open and the response says "Connection: keep-alive" (HTTP/1.0 client).
    case keepAlive
    /// The response says "Connection: close" and the proxy closes once it is written.
    case close

    /// - Parameters:
    ///   - clientVersion: the version of the request this response answers.
    ///   - clientKeepAlive: what the request asked for (`RequestHead.keepAlive`: 1.1 unless "close", 1.0 only
    ///     with "keep-alive").
    ///   - framing: how the response body reaching the client is delimited.
    ///   - mustClose: any other reason the connection cannot take another request (the upstream closes, the
    ///     request body was not read to its end, the client half-closed).
    public init(clientVersion: HTTPVersion, clientKeepAlive: Bool, framing: ResponseBodyFraming, mustClose: Bool) {
        guard clientKeepAlive, !mustClose else {
            self = .close
            return
        }
        switch (clientVersion, framing) {
        case (_, .untilClose):
            // RFC 9112 §6.3 rule 8: only the close ends this body.
            self = .close
        case (.http11, _):
            self = .persistent
        case (.http10, .none), (.http10, .contentLength):
            self = .keepAlive
        case (.http10, .chunked):
            // An HTTP/1.0 recipient cannot find the end of a chunked body; the close has to.
            self = .close
        }
    }

    /// For a response the proxy writes itself, which always carries a Content-Length (errors, the PAC file,
    /// admin answers).
    public static func lengthDelimited(clientVersion: HTTPVersion, clientKeepAlive: Bool, mustClose: Bool)
        -> ResponsePersistence
    {
        ResponsePersistence(clientVersion: clientVersion, clientKeepAlive: clientKeepAlive,
                            framing: .contentLength(0), mustClose: mustClose)
    }

    public var closes: Bool { self == .close }

    /// The Connection field line this choice adds to a response head, CRLF included; empty for `persistent`.
    var fieldLine: String { fieldLineBytes.description }

    /// `fieldLine` as static bytes, for the rewriter to copy.
    var fieldLineBytes: StaticString {
        switch self {
        case .persistent: return ""
        case .keepAlive: return "Connection: keep-alive\r\n"
        case .close: return "Connection: close\r\n"
        }
    }
}

extension ResponsePersistence: CustomStringConvertible {
    public var description: String {
        switch self {
        case .persistent: return "persistent"
        case .keepAlive: return "keep-alive"
        case .close: return "close"
        }
    }
}
