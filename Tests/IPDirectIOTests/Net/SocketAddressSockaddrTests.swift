import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct SocketAddressSockaddrTests {
    @Test(arguments: ["127.0.0.1", "192.0.2.200", "::1", "2001:db8::a:1", "::ffff:198.51.100.7", "fe80::1:2:3:4"])
    func anAddressSurvivesTheTripThroughASockaddr(text: String) throws {
        let address = SocketAddress(ip: try #require(IPAddress(text)), port: 8443)
        let back = address.withSockaddr { pointer, _ in SocketAddress(sockaddr: pointer) }
        #expect(back == address)
    }

    @Test(arguments: [("198.51.100.7", AF_INET), ("2001:db8::a:1", AF_INET6)])
    func theSockaddrIsWhatTheKernelReads(text: String, family: Int32) throws {
        let address = SocketAddress(ip: try #require(IPAddress(text)), port: 443)
        let (presented, port, length) = address.withSockaddr { pointer, length -> (String, UInt16, socklen_t) in
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let raw = UnsafeRawPointer(pointer)
            if family == AF_INET {
                let sin = raw.assumingMemoryBound(to: sockaddr_in.self)
                var addr = sin.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
                return (String(cString: buffer), UInt16(bigEndian: sin.pointee.sin_port), length)
            }
            let sin6 = raw.assumingMemoryBound(to: sockaddr_in6.self)
            var addr = sin6.pointee.sin6_addr
            inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
            return (String(cString: buffer), UInt16(bigEndian: sin6.pointee.sin6_port), length)
        }
        #expect(presented == text)
        #expect(port == 443)
        #expect(Int(length) == (family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size))
    }
}
