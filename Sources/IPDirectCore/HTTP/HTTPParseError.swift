/// Why a head or chunked body was refused, with the status the proxy answers.
///
/// Requests: 400 for anything malformed or ambiguous (RFC 9112 never repairs), 414 for a request line that
/// does not end within the head limit, 431 for header fields over the limits, 501 for a transfer coding we do
/// not know (RFC 9112 §6.1), 505 for an HTTP version other than 1.0 or 1.1. Responses: 502 (RFC 9110 §15.6.3) whatever the cause, because the client did nothing wrong.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// One short printable-ASCII line for the client and the log.
    public var reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status) \(reason)" }

    /// RFC 9110 §15.5.1.
    public static let badRequestStatus = 400
    /// RFC 9110 §15.5.15: the request-target is longer than the server is willing to interpret.
    public static let uriTooLongStatus = 414
    /// RFC 6585 §5.
    public static let headTooLargeStatus = 431
    /// RFC 9110 §15.6.2.
    public static let notImplementedStatus = 501
    /// RFC 9110 §15.6.3.
    public static let badGatewayStatus = 502
    /// RFC 9110 §15.6.6.
    public static let versionNotSupportedStatus = 505

    static func badRequest(_ reason: String) -> HTTPParseError {
        HTTPParseError(status: badRequestStatus, reason: reason)
    }
}
