/// Why the admin listener will not serve a request that a web page may have sent, decided from the request's
/// method and fields alone. Without it a page the user has open could flush the cache with a form (CSRF), or
/// read `/cache`, the names the user visited, through a name that rebinds to 127.0.0.1.
public enum AdminRefusal: Sendable, Equatable, CustomStringConvertible {
    /// Host names another host or port: the request was meant for someone else, or a page reached the
    /// listener through DNS rebinding. 421 (RFC 9110 §15.5.20).
    case misdirected(host: String)
    /// A request that changes state, sent by a page of another origin (or an opaque one, "null"). 403.
    case foreignOrigin(String)
    /// A request that changes state without `X-IPDirect-Admin: 1`, which a page cannot add unasked. 403.
    case missingMarker

    /// Checks Host on every request; a request that is not a read (GET, HEAD) must also come from no
    /// origin or this listener's own, and carry the marker. Nil when the request may be served.
    public init?(method: HTTPMethod, fields: AdminRequestFields, authority: AdminAuthority) {
        // No Host, or an empty one (RFC 9110 §7.2), names no other host; a browser always sends its page's.
        if let host = fields.host, !host.isEmpty, !authority.isOwnHost(host) {
            self = .misdirected(host: host)
        } else if AdminRoute.isRead(method) {
            return nil
        } else if let origin = fields.origins.first(where: { !authority.isOwnOrigin($0) }) {
            self = .foreignOrigin(origin)
        } else if !fields.hasMarker {
            self = .missingMarker
        } else {
            return nil
        }
    }

    public var response: AdminResponse {
        switch self {
        case .misdirected(let host):
            return .text(421, "Host '\(host)' does not name this admin listener; use its address or localhost with its port")
        case .foreignOrigin(let origin):
            return .text(403, "Origin '\(origin)' is not this admin listener; requests that change state are refused from other origins")
        case .missingMarker:
            return .text(403, "requests that change state need the field '\(AdminRequestFields.markerName): \(AdminRequestFields.markerValue)'")
        }
    }

    public var description: String {
        switch self {
        case .misdirected(let host): return "misdirected host=\(LogQuote.token(host))"
        case .foreignOrigin(let origin): return "foreign_origin origin=\(LogQuote.quoted(origin))"
        case .missingMarker: return "missing_marker field=\(AdminRequestFields.markerName)"
        }
    }
}
