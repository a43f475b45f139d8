import CEvent
import Glibc
import IPDirectCore
import IPDirectTesting
import Testing
@testable import IPDirectIO

/// The transparent listener serves only connections netfilter redirected: one that reaches it directly has
/// no original destination but the listener itself, and is closed before it gets a session.
@Suite(.serialized) struct TransparentListenerTests {
    @Test func aConnectionThatWasNotRedirectedIsClosedWithoutASession() throws {
        var config = try ClientSessionTests.config(originPort: 443)
        config.transparent.listen = [SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0)]
        let server = try Server(config: config)
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        let address = try #require(server.transparentAddresses.first)
        #expect(address.port != 0)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        let status = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        #expect(status == 0 || errno == EINPROGRESS)
        _ = "GET / HTTP/1.1\r\nHost: origin.test\r\n\r\n".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        let closed = LoopDriver.run(worker.base) {
            var byte: UInt8 = 0
            let read = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
            return read == 0 || (read < 0 && errno == ECONNRESET)
        }
        #expect(closed, "the connection was closed")
        #expect(worker.sessions.isEmpty)
        let counts = worker.metrics.snapshot.transparentConnections
        let refused = counts[.none, .refused] + counts[.none, .loop]
        #expect(refused == 1, "\(counts)")
        #expect(worker.metrics.snapshot.connectionsActive == 0)
    }
}
