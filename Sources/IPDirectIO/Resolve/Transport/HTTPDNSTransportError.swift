import IPDirectCore

/// Why an exchange with an HTTPDNS endpoint failed; every case makes the caller try the next
/// bootstrap address or provider.
enum HTTPDNSTransportError: Error, Equatable, CustomStringConvertible {
    /// Where an exchange was when its time ran out.
    enum Phase: Equatable, CustomStringConvertible {
        /// Queued: every connection to the address is busy (or every HTTP/2 stream slot is taken).
        case waitingForConnection
        /// TCP connect or TLS handshake in flight.
        case connecting
        /// Request sent, no response head yet.
        case awaitingResponse
        /// Response head received, body incomplete.
        case readingBody

        var description: String {
            switch self {
            case .waitingForConnection: return "waiting for a connection"
            case .connecting: return "connecting"
            case .awaitingResponse: return "awaiting the response"
            case .readingBody: return "reading the response body"
            }
        }
    }

    /// TCP connect failed: the Connector's words, which name the address and errno text.
    case connectFailed(address: SocketAddress, reason: String)
    /// TLS handshake or certificate check failed, in TLSFailure's words.
    case tls(address: SocketAddress, reason: String)
    /// The whole exchange did not finish within the endpoint's timeout.
    case timedOut(phase: Phase, millis: Int)
    /// The endpoint answered with a status other than 2xx. Error bodies name the cause (Alibaba Cloud's
    /// `{"code":"InvalidAccount"}`), so the description quotes the start of the body.
    case httpStatus(Int, body: String)
    /// The response broke HTTP/1.1 framing or HTTP/2 (nghttp2's words).
    case protocolError(String)
    /// The body exceeded `limit` bytes.
    case bodyTooLarge(limit: Int)
    /// The connection ended before the response was complete (or the stream was refused).
    case connectionClosed(String)
    /// The request cannot be sent as given (a field or target that would break the framing).
    case invalidRequest(String)

    var description: String {
        switch self {
        case .connectFailed(_, let reason): return "connect failed: \(reason)"
        case .tls(_, let reason): return reason
        case .timedOut(let phase, let millis): return "timed out after \(millis) ms while \(phase)"
        case .httpStatus(let status, let body): return "HTTP status \(status)" + (body.isEmpty ? "" : ": \(LogQuote.singleQuoted(body))")
        case .protocolError(let reason): return "protocol error: \(reason)"
        case .bodyTooLarge(let limit): return "response body larger than \(limit) bytes"
        case .connectionClosed(let reason): return "connection closed: \(reason)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        }
    }

    /// The exchange ran out of time (any phase), as opposed to failing.
    var isTimeout: Bool {
        if case .timedOut = self { return true }
        return false
    }

    /// Maps the Connector's failure for `address`: TLS failures keep TLSFailure's wording.
    static func connecting(_ failure: ConnectFailure, address: SocketAddress, timeoutMillis: Int) -> HTTPDNSTransportError {
        if failure.timedOut { return .timedOut(phase: .connecting, millis: timeoutMillis) }
        switch failure.cause {
        case .tls: return .tls(address: address, reason: failure.description)
        case .attempts: return .connectFailed(address: address, reason: failure.description)
        }
    }
}
