/// The addresses and ports the daemon itself listens on. No request through the proxy may reach one of
/// them: any client of the proxy could otherwise use the admin API (it has no authentication, shows the
/// names looked up and flushes the cache) or make the proxy talk to itself. Every listener joins this set
/// when it is bound, with the `Role` it serves.
public struct OwnEndpoints: Sendable, Equatable {
    /// What a listener serves; named in the refusal and its log line.
    public enum Role: String, Sendable, CustomStringConvertible {
        case proxy
        case admin
        case dns
        case transparent

        public var description: String { rawValue }
    }

    /// One listening socket's address, with the port the kernel chose where the file said 0.
    public struct Listener: Sendable, Equatable, CustomStringConvertible {
        public var role: Role
        public var address: SocketAddress

        public init(role: Role, address: SocketAddress) {
            self.role = role
            self.address = address
        }

        /// `admin 127.0.0.1:8081`.
        public var description: String { "\(role) \(address)" }
    }

    public private(set) var listeners: [Listener] = []
    /// The machine's interface addresses (getifaddrs), renewed when the network changes: a listener on
    /// a wildcard address answers on each of them. Loopback needs no entry; it is always local.
    public var interfaceAddresses: Set<IPAddress> = []

    public init(listeners: [Listener] = [], interfaceAddresses: Set<IPAddress> = []) {
        self.listeners = listeners
        self.interfaceAddresses = interfaceAddresses
    }

    public mutating func add(_ role: Role, _ addresses: [SocketAddress]) {
        listeners += addresses.map { Listener(role: role, address: $0) }
    }

    /// Whether some listener uses `port`: requests to other ports (nearly all) skip the address checks.
    public func anyListens(onPort port: UInt16) -> Bool {
        listeners.contains { $0.address.port == port }
    }

    /// The listener a connection to `destination` would reach, or nil. A listener on 0.0.0.0 or :: is
    /// reached on every local address: loopback, the unspecified address (which the kernel delivers to
    /// loopback) and the interface addresses; one on :: also over IPv4, since a socket handed over by
    /// systemd may not be IPv6-only.
    public func listener(reachedBy destination: SocketAddress) -> Listener? {
        let target = OwnEndpoints.deliveredAddress(destination.ip)
        return listeners.first { listener in
            guard listener.address.port == destination.port else { return false }
            let bound = OwnEndpoints.deliveredAddress(listener.address.ip)
            if bound == target { return true }
            switch listener.address.ip {
            case .v4(0): return !target.isIPv6 && isLocal(target)
            case .v6(0, 0): return isLocal(target)
            default: return false
            }
        }
    }

    /// Loopback, or one of this machine's interface addresses.
    private func isLocal(_ address: IPAddress) -> Bool {
        address.isLoopbackAddress || interfaceAddresses.contains(address)
    }

    /// Where the kernel delivers a connection to `address`: an IPv4-mapped address is its IPv4 address,
    /// and the unspecified address is loopback (connect(2) to 0.0.0.0 or :: reaches 127.0.0.1 or ::1).
    static func deliveredAddress(_ address: IPAddress) -> IPAddress {
        switch address.unmapped {
        case .v4(0): return .v4(0x7F00_0001)
        case .v6(0, 0): return .v6(0, 1)
        case let other: return other
        }
    }
}
