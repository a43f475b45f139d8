import CEvent
import Glibc
import IPDirectCore

extension SocketAddress {
    /// Calls `body` with this address as a `sockaddr` of the right family and length.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var storage = sockaddr_storage()
        let length: socklen_t
        switch ip {
        case .v4(let value):
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = port.bigEndian
                sin.pointee.sin_addr.s_addr = value.bigEndian
            }
        case .v6(let high, let low):
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = port.bigEndian
                withUnsafeMutableBytes(of: &sin6.pointee.sin6_addr) { address in
                    address.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
                    address.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
                }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Reads an AF_INET or AF_INET6 `sockaddr`; nil for other families.
    init?(sockaddr pointer: UnsafePointer<sockaddr>) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(pointer).assumingMemoryBound(to: sockaddr_in.self).pointee
            self.init(ip: .v4(UInt32(bigEndian: sin.sin_addr.s_addr)), port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = UnsafeRawPointer(pointer).assumingMemoryBound(to: sockaddr_in6.self).pointee
            let halves = withUnsafeBytes(of: sin6.sin6_addr) {
                (UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                 UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            }
            self.init(ip: .v6(halves.0, halves.1), port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }

    /// The local address a socket is bound to or a connection arrived on (getsockname); nil when the
    /// descriptor has none of IPv4 or IPv6.
    init?(localOf fd: Int32) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(fd, address, &length) == 0 ? SocketAddress(sockaddr: address) : nil
            }
        }
        guard let found else { return nil }
        self = found
    }
}
