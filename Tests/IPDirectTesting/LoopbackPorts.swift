import Glibc

/// Loopback TCP helpers for fixtures: free ports and a readiness probe.
package enum LoopbackPorts {
    /// 127.0.0.1 in host byte order.
    package static let loopback: UInt32 = 0x7F00_0001

    /// `count` distinct ports the kernel picked as free (bound to port 0, then released).
    package static func free(count: Int) throws -> [UInt16] {
        var sockets: [Int32] = []
        defer { sockets.forEach { _ = close($0) } }
        var ports: [UInt16] = []
        for _ in 0..<count {
            let fd = try bound(port: 0)
            sockets.append(fd)
            ports.append(try localPort(fd))
        }
        return ports
    }

    /// A TCP socket bound to 127.0.0.1:`port`, not listening yet.
    package static func bound(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in(port: port)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw FixtureError("bind: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    package static func localPort(_ fd: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { throw FixtureError("getsockname: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` (a blocking loopback connect).
    package static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

extension sockaddr_in {
    /// 127.0.0.1:`port`.
    package init(port: UInt16) {
        self.init()
        sin_family = sa_family_t(AF_INET)
        sin_port = port.bigEndian
        sin_addr = in_addr(s_addr: LoopbackPorts.loopback.bigEndian)
    }
}
