import CEvent
import Glibc
import IPDirectCore

/// Makes the daemon's listening sockets, TCP and UDP alike: non-blocking, close-on-exec, bound.
enum SocketBinding {
    /// `reusePort`: SO_REUSEPORT, so sockets of this process (and only of this user) can be bound to the same
    /// address, each with its own queue; the kernel hashes every new connection or datagram to one of them.
    static func bound(_ address: SocketAddress, type: __socket_type, reuseAddress: Bool,
                      reusePort: Bool) throws(StartupError) -> Int32 {
        let label = type == SOCK_DGRAM ? "\(address)/udp" : "\(address)"
        let family = address.ip.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartupError("cannot listen on \(label): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        if reuseAddress {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if reusePort {
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        if address.ip.isIPv6 {
            // [::]:port must not also capture IPv4; list 0.0.0.0 separately when both are wanted.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw StartupError("cannot listen on \(label): \(reason)")
        }
        return fd
    }
}
