import Glibc
import IPDirectCore

/// The addresses configured on this machine's interfaces (getifaddrs), for the network-change
/// fingerprint and for the local addresses a wildcard listener answers on.
enum InterfaceAddresses {
    static func current() -> [(interface: String, ip: IPAddress)] {
        var found: [(interface: String, ip: IPAddress)] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return found }
        defer { freeifaddrs(list) }
        var next = list
        while let entry = next {
            if let raw = entry.pointee.ifa_addr, let address = SocketAddress(sockaddr: raw) {
                found.append((String(cString: entry.pointee.ifa_name), address.ip))
            }
            next = entry.pointee.ifa_next
        }
        return found
    }
}
