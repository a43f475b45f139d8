/// The `[access]` section: who may use the proxy, and what clients may ask it to reach.
public struct AccessSettings: Sendable, Equatable {
    /// Ports a CONNECT request may target; empty refuses every CONNECT.
    public var connectPorts: [UInt16] = [443]
    /// Whether a name may lead to a loopback, private or link-local address (`IPAddress.isNonPublic`).
    /// Off by default so a public name cannot be pointed at internal services (DNS rebinding).
    public var allowPrivateUpstreams = false
    /// Client addresses the proxy serves; connections from anywhere else are refused.
    public var clients = ClientAccessList.localNetworks
    /// htpasswd file of the users who may log in; nil serves clients without a login.
    public var authFile: String?

    public init() {}
}

extension AccessSettings {
    static var configKeys: [ConfigKey<AccessSettings>] {
        [
            ConfigKey("connect_ports", \.connectPorts, .list(of: .port, allowEmpty: true)),
            ConfigKey("allow_private_upstreams", \.allowPrivateUpstreams, .boolean),
            ConfigKey("clients", \.clients, .clientAccessList),
            ConfigKey("auth_file", \.authFile, .nonEmptyText),
        ]
    }
}

extension ConfigReader where Value == IPPrefix {
    /// `192.168.0.0/16`, `fd00::/8`, or a bare address for itself alone.
    static var ipPrefix: ConfigReader {
        ConfigReader<String>.string.then { text in
            IPPrefix.parse(text).mapError { ConfigRejection(stringLiteral: $0.description) }
        }
    }
}

extension ConfigReader where Value == ClientAccessList {
    /// One prefix as a plain string, or an array of at least one.
    static var clientAccessList: ConfigReader {
        ConfigReader<[IPPrefix]>.oneOrList(of: .ipPrefix, allowEmpty: false, expected: "a prefix or an array of prefixes")
            .then { .success(ClientAccessList($0)) }
    }
}
