/// The names under which the admin listener answers, as a client writes them in Host (RFC 9110 §7.2) and a
/// browser in Origin (RFC 6454 §7): the listener's own addresses with their ports, and the loopback names
/// with the port the connection arrived on.
///
/// The admin API has no authentication, so how a request names the listener is what tells a local tool from
/// a web page the user has open. A page whose name rebinds to 127.0.0.1 (DNS rebinding) reaches the listener
/// with that name in Host, and would be same-origin with what it reads. A page that asks for
/// `http://127.0.0.1:8081/` by address sends the right Host, but is cross-origin there: the browser keeps the
/// answer from it (the admin API sends no CORS fields), and `AdminRefusal` keeps it from changing state.
///
/// A Host with another port is refused: it names another origin (RFC 6454 §4), and Origin must name this
/// port, so both fields follow one rule. Behind a port forward, keep the port or send the listener's Host.
public struct AdminAuthority: Sendable, Equatable {
    /// The names a local client uses for this machine. `localhost` is answered by the browser or the
    /// resolver itself (RFC 6761 §6.3), so no DNS answer of a page's choosing stands behind it.
    static let loopbackNames = ["localhost", "127.0.0.1", "::1"]
    /// The port an Origin without one means: the admin API speaks plain HTTP (RFC 9110 §4.2.1).
    static let httpDefaultPort: UInt16 = 80

    /// A host (lower-case name, or an IP address in its canonical text without brackets) and a port.
    struct Name: Sendable, Equatable {
        var host: String
        var port: UInt16
    }

    let names: [Name]

    /// - Parameters:
    ///   - listening: the addresses the admin listener is bound to. A wildcard (0.0.0.0, ::) names no
    ///     host: `http://0.0.0.0:8081/` reaches loopback on Linux, and a page may use it.
    ///   - local: the address this connection arrived on (getsockname), which stands for a wildcard.
    public init(listening: [SocketAddress], arrivedOn local: SocketAddress) {
        let addresses = listening.filter { !$0.ip.isUnspecified } + [local]
        names = addresses.map { Name(host: $0.ip.description, port: $0.port) }
            + Self.loopbackNames.map { Name(host: IPAddress($0)?.description ?? $0, port: local.port) }
    }

    /// Whether a Host value names this listener: one of its names, with its port or without a port.
    public func isOwnHost(_ value: String) -> Bool {
        guard let authority = Self.authority(value) else { return false }
        return names.contains { $0.host == authority.host && (authority.port == nil || $0.port == authority.port) }
    }

    /// Whether an Origin value is `http://` and one of this listener's names with its port (RFC 6454 §6.1:
    /// the port is left out only when it is the scheme's default). "null" and other schemes are foreign.
    public func isOwnOrigin(_ value: String) -> Bool {
        let scheme = "http://"
        guard value.lowercased().hasPrefix(scheme),
              let authority = Self.authority(String(value.dropFirst(scheme.count))) else { return false }
        let name = Name(host: authority.host, port: authority.port ?? Self.httpDefaultPort)
        return names.contains(name)
    }

    /// `uri-host [ ":" port ]` read as the proxy reads a Host field; the host in the form `names` uses.
    private static func authority(_ text: String) -> (host: String, port: UInt16?)? {
        let parsed = Array(text.utf8).withUnsafeBytes { URIAuthority.parse($0, 0..<$0.count, portRequired: false) }
        guard case .success(let authority) = parsed else { return nil }
        return (IPAddress(authority.host)?.description ?? authority.host, authority.port)
    }
}

extension IPAddress {
    /// 0.0.0.0 or ::, the addresses a wildcard listener binds.
    var isUnspecified: Bool {
        switch self {
        case .v4(let value): return value == 0
        case .v6(let hi, let lo): return hi == 0 && lo == 0
        }
    }
}
