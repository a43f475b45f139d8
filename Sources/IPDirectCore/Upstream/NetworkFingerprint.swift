/// What a change of the network must alter to count as one: the machine's addresses and its default
/// routes. Netlink also reports address lifetime refreshes (every IPv6 router advertisement) and links
/// without addresses coming and going (containers' veth pairs); those leave the fingerprint as it was.
public struct NetworkFingerprint: Sendable, Equatable {
    /// `interface address`, sorted.
    public var addresses: [String]
    /// `interface gateway` of each default route, IPv4 and IPv6, sorted.
    public var defaultRoutes: [String]

    public init(addresses: [String], ipv4RouteTable: String, ipv6RouteTable: String) {
        self.addresses = addresses.sorted()
        defaultRoutes = (Self.ipv4DefaultRoutes(ipv4RouteTable) + Self.ipv6DefaultRoutes(ipv6RouteTable)).sorted()
    }

    /// `/proc/net/route`: Iface, Destination, Gateway, Flags, RefCnt, Use, Metric, Mask, ... (hex, host order).
    static func ipv4DefaultRoutes(_ table: String) -> [String] {
        table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000" else { return nil }
            return "\(fields[0]) \(fields[2])"
        }
    }

    /// `/proc/net/ipv6_route`: destination, its prefix length, source, its prefix length, next hop,
    /// metric, refcount, use, flags, interface.
    static func ipv6DefaultRoutes(_ table: String) -> [String] {
        let anyAddress = String(repeating: "0", count: 32)
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, fields[0] == anyAddress, fields[1] == "00" else { return nil }
            return "\(fields[9]) \(fields[4])"
        }
    }
}
