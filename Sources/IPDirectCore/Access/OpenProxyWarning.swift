/// A proxy listener that anyone on the networks it faces may use: reachable off this machine, with no
/// `auth_file` and no `clients` list narrower than the default. Not an error (a trusted LAN is a fair
/// place for that), but said loudly by `ipdirect check` and at startup, because an open proxy gets found
/// and abused.
public struct OpenProxyWarning: Sendable, Equatable, CustomStringConvertible {
    public let listen: SocketAddress
    public let reason: String

    /// One warning per listen address off loopback, or none when logins or `clients` guard them.
    public static func find(listen: [SocketAddress], access: AccessSettings) -> [OpenProxyWarning] {
        guard access.authFile == nil, !access.clients.isNarrower(than: .localNetworks) else { return [] }
        let reason = access.clients == .localNetworks
            ? "no auth_file, and clients is the default: every host on loopback and the private networks may use this proxy"
            : "no auth_file, and clients is not narrower than the default loopback and private networks"
        return listen.filter { !$0.ip.isLoopbackAddress }.map { OpenProxyWarning(listen: $0, reason: reason) }
    }

    /// The event-log form, `event=open_proxy_warning listen=0.0.0.0:8080 reason="..."`.
    public var description: String {
        "event=open_proxy_warning listen=\(listen) reason=\"\(reason)\" note=\"set [access] auth_file or a narrower clients list\""
    }
}
