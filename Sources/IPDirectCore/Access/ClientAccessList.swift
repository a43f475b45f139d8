/// Which client addresses may use the proxy (`[access] clients`); a connection from any other address is
/// refused. Checked once per connection, against the address the connection came from.
public struct ClientAccessList: Sendable, Equatable, CustomStringConvertible {
    public let prefixes: [IPPrefix]

    public init(_ prefixes: [IPPrefix]) {
        self.prefixes = prefixes
    }

    /// Loopback and the private networks, as squid's `localnet`: this machine, RFC 1918, shared address
    /// space (RFC 6598), link-local (RFC 3927, RFC 4291 §2.5.6) and unique local addresses (RFC 4193).
    /// An open proxy on a public address serves the whole Internet; this default keeps it to the networks
    /// a home or office controls.
    public static let localNetworks = ClientAccessList([
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12",
        "192.168.0.0/16", "fc00::/7", "fe80::/10",
    ].map { IPPrefix($0)! })

    /// Whether a client at `ip` may use the proxy. An IPv4 client reaching a dual-stack listener arrives as
    /// `::ffff:a.b.c.d` and is matched as the IPv4 address it is.
    public func permits(_ ip: IPAddress) -> Bool {
        let client = ip.unmapped
        return prefixes.contains { $0.contains(client) }
    }

    /// Whether this list permits only addresses `other` permits, and not all of them. Exact for lists
    /// whose blocks cannot join into a larger block, as `localNetworks`.
    public func isNarrower(than other: ClientAccessList) -> Bool {
        let inside = prefixes.allSatisfy { prefix in other.prefixes.contains { $0.covers(prefix) } }
        let coversAll = other.prefixes.allSatisfy { prefix in prefixes.contains { $0.covers(prefix) } }
        return inside && !coversAll
    }

    public var description: String {
        prefixes.map(\.description).joined(separator: ",")
    }
}
