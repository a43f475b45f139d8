/// Decides which resolved addresses ipdirect may connect to; the order is the address plan's
/// (`AddressHealthTable.plan`).
public struct UpstreamPolicy: Sendable {
    public var allowPrivateUpstreams: Bool
    public var connectPorts: Set<UInt16>

    public init(allowPrivateUpstreams: Bool, connectPorts: [UInt16]) {
        self.allowPrivateUpstreams = allowPrivateUpstreams
        self.connectPorts = Set(connectPorts)
    }

    public func permitsTunnel(toPort port: UInt16) -> Bool {
        connectPorts.contains(port)
    }

    /// Drops non-public addresses unless allowed or the operator pinned the name in `[hosts]`:
    /// otherwise a public name whose DNS answer points inside would let clients reach local services
    /// through the proxy (DNS rebinding).
    public func permittedAddresses(_ resolution: Resolution, host: String) -> Result<[IPAddress], ProxyError> {
        if allowPrivateUpstreams || resolution.source == .hosts {
            return .success(resolution.addresses)
        }
        let permitted = resolution.addresses.filter { !$0.isNonPublic }
        if permitted.isEmpty {
            let refused = resolution.addresses.map(\.description).joined(separator: ", ")
            return .failure(ProxyError(
                status: 403, kind: .destinationIPProhibited,
                details: "\(host) resolved only to non-public addresses (\(refused)); allow_private_upstreams = false"))
        }
        return .success(permitted)
    }
}
