/// What an admin request asks for, decided from its method, path and query alone, so routing is
/// tested without a socket. The admin listener then does the work a route names.
public enum AdminRoute: Sendable, Equatable, CustomStringConvertible {
    /// `GET /healthz`: the daemon is up.
    case health
    /// `GET /metrics`: Prometheus text.
    case metrics
    /// `GET /cache`: the resolver cache as JSON.
    case cacheDump
    /// `POST /cache/flush[?name=NAME]`: forget one name (both families) or everything.
    case cacheFlush(name: String?)
    /// `GET /upstreams`: every host's addresses with their ranking, scores and states.
    case upstreams
    /// `GET /resolve?name=NAME&type=A|AAAA`: resolve like the proxy does, answered in Google's JSON schema.
    case resolve(name: String, family: AddressFamily)
    /// `GET /queries[?limit=N]`: the newest lookups of the DNS listener and the proxy, newest first.
    case queries(limit: Int?)
    /// `GET /connections[?limit=N]`: the newest client connections of every worker, and counts of all.
    case connections(limit: Int?)
    /// `POST /connections/close?id=ID`: close one client connection (and its upstream).
    case closeConnection(id: UInt64)
    /// `GET /ui`, `GET /ui/VIEW`: the dashboard's page for a view.
    case dashboard(DashboardView)
    /// `GET /ui/app.js`, `GET /ui/app.css`: what every view's page loads.
    case dashboardAsset(DashboardAsset)
    /// A dashboard path that names no view, or a view asked with a query: an HTML page that says so.
    case dashboardError(status: Int, reason: String)
    /// A path the admin API does not have.
    case notFound(path: String)
    /// A path it has, asked with a method it does not take there; `allowed` goes in the `Allow` field.
    case methodNotAllowed(allowed: String)
    /// A known path with a query that cannot be served.
    case badRequest(reason: String)

    public var description: String {
        switch self {
        case .health: return "health"
        case .metrics: return "metrics"
        case .cacheDump: return "cache"
        case .upstreams: return "upstreams"
        case .queries(let limit): return "queries limit=\(limit.map(String.init) ?? "*")"
        case .connections(let limit): return "connections limit=\(limit.map(String.init) ?? "*")"
        case .closeConnection(let id): return "close_connection id=\(id)"
        case .dashboard(let view): return "dashboard view=\(view.rawValue)"
        case .dashboardAsset(let asset): return "dashboard_asset path=\(asset.path)"
        case .dashboardError(let status, let reason): return "dashboard_error status=\(status) reason=\"\(reason)\""
        case .cacheFlush(let name): return "cache_flush name=\(name ?? "*")"
        case .resolve(let name, let family): return "resolve name=\(name) type=\(family.recordTypeName)"
        case .notFound(let path): return "not_found path=\(path)"
        case .methodNotAllowed(let allowed): return "method_not_allowed allow=\(allowed)"
        case .badRequest(let reason): return "bad_request reason=\"\(reason)\""
        }
    }

    /// Routes a request; `target` is the origin-form target as received (`/resolve?name=a.test`).
    /// GET routes take HEAD too (RFC 9110 §9.3.2). `dashboard`: whether `/ui` is served (`[admin] ui`).
    public init(method: HTTPMethod, target: String, dashboard: Bool = true) {
        let (path, query) = Self.split(target)
        if path == DashboardAsset.root || path.hasPrefix(DashboardAsset.root + "/") {
            self = dashboard ? Self.dashboardRoute(method: method, path: path, hasQuery: target.contains("?"))
                             : .notFound(path: path)
            return
        }
        switch path {
        case "/healthz", "/metrics", "/cache", "/resolve", "/upstreams", "/queries", "/connections":
            guard Self.isRead(method) else {
                self = .methodNotAllowed(allowed: "GET, HEAD")
                return
            }
        case "/cache/flush", "/connections/close":
            guard method == .post else {
                self = .methodNotAllowed(allowed: "POST")
                return
            }
        default:
            self = .notFound(path: path)
            return
        }
        switch path {
        case "/healthz": self = .health
        case "/metrics": self = .metrics
        case "/cache": self = .cacheDump
        case "/upstreams": self = .upstreams
        case "/queries": self = Self.withLimit(query, AdminRoute.queries)
        case "/connections": self = Self.withLimit(query, AdminRoute.connections)
        case "/connections/close":
            guard let text = query["id"] else {
                self = .badRequest(reason: "id is required: the id of a connection as GET /connections lists it")
                return
            }
            self = UInt64(text).map { .closeConnection(id: $0) }
                ?? .badRequest(reason: "id: \(LogQuote.singleQuoted(text)) is not a connection id")
        case "/cache/flush":
            if let name = query["name"] {
                self = Self.checkedName(name).map { .cacheFlush(name: $0) } ?? .badRequest(reason: "name: \(LogQuote.singleQuoted(name)) is not a host name")
            } else {
                self = .cacheFlush(name: nil)
            }
        default:
            self = Self.resolveRoute(query)
        }
    }

    /// `route` with the query's `limit`, a positive number when given.
    private static func withLimit(_ query: [String: String], _ route: (Int?) -> AdminRoute) -> AdminRoute {
        guard let text = query["limit"] else { return route(nil) }
        guard let limit = Int(text), limit > 0 else {
            return .badRequest(reason: "limit: \(LogQuote.singleQuoted(text)) is not a positive number")
        }
        return route(limit)
    }

    /// A path under `/ui`: a view, an asset, or an HTML page saying why there is none. The pages take no
    /// query, so a mistyped link says so rather than showing a view that ignores it.
    private static func dashboardRoute(method: HTTPMethod, path: String, hasQuery: Bool) -> AdminRoute {
        guard isRead(method) else { return .methodNotAllowed(allowed: "GET, HEAD") }
        if let asset = DashboardAsset.allCases.first(where: { $0.path == path }) { return .dashboardAsset(asset) }
        let name = path.dropFirst(DashboardAsset.root.count).drop { $0 == "/" }
        let view = name.isEmpty ? DashboardView.allCases[0] : DashboardView(rawValue: String(name))
        guard let view else {
            return .dashboardError(status: 404, reason: "The dashboard has no view named \(LogQuote.singleQuoted(String(name))).")
        }
        guard !hasQuery else {
            return .dashboardError(status: 400, reason: "The dashboard's pages take no query; open \(view.path).")
        }
        return .dashboard(view)
    }

    /// GET and HEAD: the methods of the routes that change nothing. Every other method changes state here.
    public static func isRead(_ method: HTTPMethod) -> Bool {
        method == .get || method == .head
    }

    private static func resolveRoute(_ query: [String: String]) -> AdminRoute {
        guard let rawName = query["name"] else { return .badRequest(reason: "name is required") }
        guard let name = checkedName(rawName) else { return .badRequest(reason: "name: \(LogQuote.singleQuoted(rawName)) is not a host name") }
        let family: AddressFamily
        switch query["type"]?.uppercased() ?? "A" {
        case "A", "1": family = .v4
        case "AAAA", "28": family = .v6
        case let other: return .badRequest(reason: "type: \(LogQuote.singleQuoted(other)) is not A or AAAA")
        }
        return .resolve(name: name, family: family)
    }

    /// The name lower-cased without a trailing dot, or nil when it is not a DNS host name (an IP
    /// literal is allowed: it resolves to itself, as in a proxy request).
    private static func checkedName(_ text: String) -> String? {
        if IPAddress(text) != nil { return text }
        guard case .success(let name) = HostName.normalize(text) else { return nil }
        return name
    }

    /// Path and decoded query parameters; the first of a repeated parameter wins.
    static func split(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = percentDecoded(parts[0])
            if query[key] == nil { query[key] = parts.count > 1 ? percentDecoded(parts[1]) : "" }
        }
        return (String(target[..<mark]), query)
    }

    /// `%XX` escapes and `+` (form encoding) decoded; a broken escape is kept as written.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                      let high = HTTPByte.hexValue(utf8[utf8.startIndex]), let low = HTTPByte.hexValue(utf8[utf8.startIndex + 1]) {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
