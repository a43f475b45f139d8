import Glibc
import IPDirectCore

extension SocketAddress {
    /// Where a connection redirected by netfilter (`nft ... redirect`) was going before the redirect: the
    /// conntrack entry's original destination, asked with `SO_ORIGINAL_DST` (IPv4) or `IP6T_SO_ORIGINAL_DST`
    /// (IPv6), which needs no privilege. Nil when the kernel has none: the connection was not redirected and
    /// conntrack does not track it.
    init?(originalDestinationOf fd: Int32, family: sa_family_t) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let isIPv6 = Int32(family) == AF_INET6
        let found = withUnsafeMutablePointer(to: &storage) { pointer in
            getsockopt(fd, isIPv6 ? SocketAddress.solIPv6 : SocketAddress.solIP, SocketAddress.soOriginalDestination,
                       pointer, &length) == 0
        }
        guard found else { return nil }
        let address = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
        }
        guard let address else { return nil }
        self = address
    }

    /// linux/netfilter_ipv4.h SO_ORIGINAL_DST and linux/netfilter_ipv6/ip6_tables.h IP6T_SO_ORIGINAL_DST,
    /// both 80, asked at the levels SOL_IP (0) and SOL_IPV6 (41): the headers are not imported.
    private static let soOriginalDestination: Int32 = 80
    private static let solIP: Int32 = 0
    private static let solIPv6: Int32 = 41
}
