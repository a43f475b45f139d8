/// One response of the admin listener (or the proxy listener's `/proxy.pac`), rendered as HTTP/1.1.
public struct AdminResponse: Sendable, Equatable {
    public static let jsonType = "application/json"
    public static let textType = "text/plain; charset=utf-8"

    public var status: Int
    public var contentType: String
    public var body: String
    /// A body already in bytes (a long JSON answer written by `JSONBuffer`), sent instead of `body`.
    public var bodyBytes: [UInt8]?
    /// Fields besides the framing ones, such as `Allow` on a 405.
    public var extraFields: [(String, String)] = []

    public init(status: Int, contentType: String, body: String, extraFields: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.extraFields = extraFields
    }

    public static func == (lhs: AdminResponse, rhs: AdminResponse) -> Bool {
        lhs.status == rhs.status && lhs.contentType == rhs.contentType && lhs.body == rhs.body && lhs.bodyBytes == rhs.bodyBytes
            && lhs.extraFields.map { $0.0 + ":" + $0.1 } == rhs.extraFields.map { $0.0 + ":" + $0.1 }
    }

    public static func text(_ status: Int, _ body: String, extraFields: [(String, String)] = []) -> AdminResponse {
        AdminResponse(status: status, contentType: textType, body: body + "\n", extraFields: extraFields)
    }

    public static func json(_ status: Int, _ body: String) -> AdminResponse {
        AdminResponse(status: status, contentType: jsonType, body: body + "\n")
    }

    /// A JSON answer written as bytes (which end with a line feed, as every other answer does).
    public static func json(_ status: Int, bytes: [UInt8]) -> AdminResponse {
        var response = AdminResponse(status: status, contentType: jsonType, body: "")
        response.bodyBytes = bytes
        return response
    }

    /// The answer for routes that need nothing from the daemon: errors and `/healthz`.
    public static func immediate(for route: AdminRoute) -> AdminResponse? {
        switch route {
        case .health: return .text(200, "ok")
        case .notFound(let path): return .text(404, "no admin endpoint at \(path)")
        case .methodNotAllowed(let allowed): return .text(405, "method not allowed; use \(allowed)", extraFields: [("Allow", allowed)])
        case .badRequest(let reason): return .text(400, reason)
        case .dashboard(let view): return DashboardResponse.page(view)
        case .dashboardAsset(let asset): return DashboardResponse.asset(asset)
        case .dashboardError(let status, let reason): return DashboardResponse.error(status: status, reason: reason)
        case .metrics, .cacheDump, .cacheFlush, .resolve, .upstreams, .queries, .connections, .closeConnection: return nil
        }
    }

    /// Fields every answer carries. Nothing is cached, a browser never guesses another type than the one
    /// sent (a JSON answer holding a stranger's name is never run as a script), no address leaks to another
    /// site, and no page of the admin listener is framed or runs anything it did not load from here. Never
    /// an `Access-Control-Allow-*` field: no other origin may read an answer.
    static func securityFields(contentType: String) -> String {
        let policy = contentType == DashboardResponse.htmlType
            ? DashboardResponse.contentSecurityPolicy : "default-src 'none'; frame-ancestors 'none'"
        return "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
            + "Content-Security-Policy: \(policy)\r\n"
    }

    /// Status line, fields and body; `headOnly` leaves the body out (a HEAD request, RFC 9110 §9.3.2)
    /// but keeps its Content-Length. `persistence` gives the Connection field, if any.
    public func bytes(persistence: ResponsePersistence, headOnly: Bool) -> [UInt8] {
        let bodyBytes = self.bodyBytes ?? Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        head += "Content-Type: \(contentType)\r\n"
        head += "Content-Length: \(bodyBytes.count)\r\n"
        head += Self.securityFields(contentType: contentType)
        for (name, value) in extraFields { head += "\(name): \(value)\r\n" }
        head += persistence.fieldLine
        head += "\r\n"
        return Array(head.utf8) + (headOnly ? [] : bodyBytes)
    }

    /// The statuses only the admin side sends, then the ones errors share with the proxy.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 405: return "Method Not Allowed"
        case 421: return "Misdirected Request"
        default: return ProxyError.reasonPhrase(status)
        }
    }
}
