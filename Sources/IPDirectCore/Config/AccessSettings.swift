/// The `[access]` section: what clients may ask the proxy to reach.
public struct AccessSettings: Sendable, Equatable {
    /// Ports a CONNECT request may target; empty refuses every CONNECT.
    public var connectPorts: [UInt16] = [443]
    /// Whether a name may lead to a loopback, private or link-local address (`IPAddress.isNonPublic`).
    /// Off by default so a public name cannot be pointed at internal services (DNS rebinding).
    public var allowPrivateUpstreams = false

    public init() {}
}

extension AccessSettings {
    static var configKeys: [ConfigKey<AccessSettings>] {
        [
            ConfigKey("connect_ports", \.connectPorts, .list(of: .port, allowEmpty: true)),
            ConfigKey("allow_private_upstreams", \.allowPrivateUpstreams, .boolean),
        ]
    }
}
