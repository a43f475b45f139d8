/// Decides which resolved addresses ipdirect may connect to, and in which order.
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
            return .success(UpstreamPolicy.connectOrder(resolution.addresses))
        }
        let permitted = resolution.addresses.filter { !$0.isNonPublic }
        if permitted.isEmpty {
            let refused = resolution.addresses.map(\.description).joined(separator: ", ")
            return .failure(ProxyError(
                status: 403, kind: .destinationIPProhibited,
                details: "\(host) resolved only to non-public addresses (\(refused)); allow_private_upstreams = false"))
        }
        return .success(UpstreamPolicy.connectOrder(permitted))
    }

    /// Alternates address families starting with the first one given (RFC 8305 §4), so one
    /// unreachable family costs a single connect timeout, not one per address.
    public static func connectOrder(_ addresses: [IPAddress]) -> [IPAddress] {
        interleavingFamilies(addresses, isIPv6: \.isIPv6)
    }

    /// RFC 8305 §4 for anything that has an address family, keeping the order within each family.
    public static func interleavingFamilies<Item>(_ items: [Item], isIPv6: (Item) -> Bool) -> [Item] {
        guard let first = items.first else { return [] }
        let preferred = items.filter { isIPv6($0) == isIPv6(first) }
        let other = items.filter { isIPv6($0) != isIPv6(first) }
        var ordered: [Item] = []
        ordered.reserveCapacity(items.count)
        for index in 0..<max(preferred.count, other.count) {
            if index < preferred.count { ordered.append(preferred[index]) }
            if index < other.count { ordered.append(other[index]) }
        }
        return ordered
    }
}
