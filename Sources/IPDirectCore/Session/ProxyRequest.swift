/// The protocol a client connection speaks; the first byte tells (0x05, 0x04, anything else HTTP).
public enum SessionFrontEnd: Sendable, Equatable {
    case http
    case socks5
    case socks4
    /// A connection redirected to the transparent listener, tunnelled to the name its first bytes gave (an
    /// HTTP request on one is `.http`).
    case transparent
}

/// What the client asked for: where it goes, what it said about its connection, and when it came.
///
/// A value that never changes: what is learned later (the user once the credentials are accepted, a SOCKS
/// client's host and port once its request is read) makes a new one, so a state holding a request always
/// holds what was known when it began.
public struct ProxyRequest: Sendable, Equatable {
    public let method: String
    public let methodKind: HTTPMethod
    public let scheme: URIScheme
    /// Where it goes, and where what this host taught about its addresses is kept. Its host is "-" when the
    /// request named no upstream (an error answer, the PAC file).
    public let hostKey: UpstreamHostKey
    public var host: String { hostKey.host }
    public var port: UInt16 { hostKey.port }
    public let isConnect: Bool
    /// The protocol the client spoke: an HTTP request, a SOCKS5 / SOCKS4 CONNECT, or a redirected connection.
    public let frontEnd: SessionFrontEnd
    /// The name the client authenticated as, when `[access] auth_file` asks for credentials.
    public let user: String?
    /// What the request asked for (`RequestHead.keepAlive`); whether the connection persists also depends
    /// on the response (`ResponsePersistence`).
    public let keepAlive: Bool
    public let upgradeRequested: Bool
    /// The request's version: an HTTP/1.0 client is kept only when told "Connection: keep-alive".
    public let clientVersion: HTTPVersion
    /// The request came with a body: it cannot be sent again on a fresh connection, and a connection
    /// whose body was not read to its end cannot carry another request.
    public let hasBody: Bool
    public let startMicros: Int64

    public init(method: String, methodKind: HTTPMethod, scheme: URIScheme = .http, host: String, port: UInt16,
                isConnect: Bool, frontEnd: SessionFrontEnd = .http, user: String? = nil, keepAlive: Bool,
                upgradeRequested: Bool, clientVersion: HTTPVersion, hasBody: Bool = false, startMicros: Int64) {
        self.method = method
        self.methodKind = methodKind
        self.scheme = scheme
        hostKey = port == 0 && host == "-" ? .nowhere : UpstreamHostKey(host: host, port: port)
        self.isConnect = isConnect
        self.frontEnd = frontEnd
        self.user = user
        self.keepAlive = keepAlive
        self.upgradeRequested = upgradeRequested
        self.clientVersion = clientVersion
        self.hasBody = hasBody
        self.startMicros = startMicros
    }

    /// The placeholder an error answer logs when no request head could be read.
    static func unparsed(at now: Int64) -> ProxyRequest {
        ProxyRequest(method: "-", methodKind: .other, host: "-", port: 0, isConnect: false, keepAlive: false,
                     upgradeRequested: false, clientVersion: .http11, startMicros: now)
    }

    /// A SOCKS client's CONNECT before its request named a destination.
    static func socks(_ frontEnd: SessionFrontEnd, at now: Int64) -> ProxyRequest {
        ProxyRequest(method: frontEnd == .socks5 ? "SOCKS5" : "SOCKS4", methodKind: .connect, host: "-", port: 0,
                     isConnect: true, frontEnd: frontEnd, keepAlive: false, upgradeRequested: false,
                     clientVersion: .http11, startMicros: now)
    }

    /// The same request from a client whose credentials were accepted for `user`.
    func authenticated(as user: String) -> ProxyRequest {
        replacing(user: user, host: host, port: port)
    }

    /// The same request once a SOCKS request named where it goes.
    func going(to host: String, port: UInt16) -> ProxyRequest {
        replacing(user: user, host: host, port: port)
    }

    private func replacing(user: String?, host: String, port: UInt16) -> ProxyRequest {
        ProxyRequest(method: method, methodKind: methodKind, scheme: scheme, host: host, port: port,
                     isConnect: isConnect, frontEnd: frontEnd, user: user, keepAlive: keepAlive,
                     upgradeRequested: upgradeRequested, clientVersion: clientVersion, hasBody: hasBody,
                     startMicros: startMicros)
    }

    public var hostPort: String {
        if host == "-" { return "-" }
        return HostName.withPort(host, port)
    }

    public var poolKey: UpstreamPoolKey { UpstreamPoolKey(scheme: scheme, origin: hostKey) }
}
