/// Decides which resolved addresses ipdirect may connect to; the order is the address plan's
/// (`AddressHealthTable.plan`).
public struct UpstreamPolicy: Sendable {
    public var allowPrivateUpstreams: Bool
    public var connectPorts: Set<UInt16>
    /// The daemon's own listeners, never a destination whatever the settings above say.
    public var ownEndpoints: OwnEndpoints

    public init(allowPrivateUpstreams: Bool, connectPorts: [UInt16], ownEndpoints: OwnEndpoints) {
        self.allowPrivateUpstreams = allowPrivateUpstreams
        self.connectPorts = Set(connectPorts)
        self.ownEndpoints = ownEndpoints
    }

    public func permitsTunnel(toPort port: UInt16) -> Bool {
        connectPorts.contains(port)
    }

    /// Drops the addresses where `port` is one of the daemon's own listeners, always; then non-public
    /// addresses unless allowed or the operator pinned the name in `[hosts]`: otherwise a public name
    /// whose DNS answer points inside would let clients reach local services through the proxy (DNS
    /// rebinding). Every way in (absolute-form, CONNECT, SOCKS5, SOCKS4/4a) and every way to an address
    /// (a name, a literal, `[hosts]`) passes here.
    public func permittedAddresses(_ resolution: Resolution, host: String, port: UInt16) -> Result<[IPAddress], ProxyError> {
        var addresses = resolution.addresses
        if ownEndpoints.anyListens(onPort: port) {
            var reached: OwnEndpoints.Listener?
            addresses.removeAll { address in
                guard let listener = ownEndpoints.listener(reachedBy: SocketAddress(ip: address, port: port)) else { return false }
                reached = reached ?? listener
                return true
            }
            if addresses.isEmpty, let reached {
                return .failure(ProxyError(
                    status: 403, kind: .destinationIPProhibited,
                    details: "\(HostName.withPort(host, port)) leads to ipdirect's own listener (listener=\(reached)), which the proxy never connects to"))
            }
        }
        if allowPrivateUpstreams || resolution.source == .hosts {
            return .success(addresses)
        }
        let permitted = addresses.filter { !$0.isNonPublic }
        if permitted.isEmpty {
            let refused = addresses.map(\.description).joined(separator: ", ")
            return .failure(ProxyError(
                status: 403, kind: .destinationIPProhibited,
                details: "\(host) resolved only to non-public addresses (\(refused)); allow_private_upstreams = false"))
        }
        return .success(permitted)
    }
}
