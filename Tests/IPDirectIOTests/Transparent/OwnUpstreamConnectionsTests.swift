import Glibc
import IPDirectCore
import IPDirectTesting
import Testing
@testable import IPDirectIO

/// A redirected connection is recognised as one of the daemon's own open connections by both of its
/// addresses, and only while that connection is open: a later connection reusing its port is someone else's.
@Suite(.serialized) struct OwnUpstreamConnectionsTests {
    static let local = SocketAddress(ip: IPAddress("10.250.9.1")!, port: 40_000)
    static let remote = SocketAddress(ip: IPAddress("203.0.113.3")!, port: 443)

    @Test func anOpenConnectionIsKnownByItsTwoAddresses() {
        let own = OwnUpstreamConnections()
        own.opened(local: Self.local, remote: Self.remote)
        #expect(own.contains(peer: Self.local, original: Self.remote))
        #expect(!own.contains(peer: Self.local, original: SocketAddress(ip: Self.remote.ip, port: 80)),
                "another destination from the same port is another connection")
        #expect(!own.contains(peer: SocketAddress(ip: Self.local.ip, port: 40_001), original: Self.remote))
        let mapped = SocketAddress(ip: IPAddress("::ffff:10.250.9.1")!, port: 40_000)
        #expect(own.contains(peer: mapped, original: Self.remote), "an IPv4-mapped peer is the same address")
    }

    @Test func aClosedConnectionsPortReusedBySomeoneElseIsNotIpdirects() {
        let own = OwnUpstreamConnections()
        own.opened(local: Self.local, remote: Self.remote)
        own.closed(local: Self.local)
        #expect(!own.contains(peer: Self.local, original: Self.remote))
        #expect(own.count == 0)
    }

    @Test func aSocketRecordsItsConnectWhileRecordingIsOnAndForgetsItWhenClosed() throws {
        let base = EventBase()
        let own = OwnUpstreamConnections()
        OwnUpstreamConnections.recording = own
        defer { OwnUpstreamConnections.recording = nil }
        let listener = try ListeningSocket(address: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 0))
        guard var socket = BufferedSocket(socket: -1, base: base) else { throw FixtureError("no bufferevent") }
        let started = socket.connect(to: listener.boundAddress)
        #expect(started)
        let local = try #require(SocketAddress(localOf: socket.fd))
        #expect(own.contains(peer: local, original: listener.boundAddress))
        socket.close()
        // Other suites' connects may be recorded meanwhile: only this one is checked.
        #expect(!own.contains(peer: local, original: listener.boundAddress))
    }

    /// A TLS upstream's connect stays recorded while it handshakes: its ClientHello is exactly what a redirect
    /// of ipdirect's own traffic would bring back to the transparent listener.
    @Test func aTLSConnectionStaysRecordedThroughItsHandshake() throws {
        let base = EventBase()
        let own = OwnUpstreamConnections()
        OwnUpstreamConnections.recording = own
        defer { OwnUpstreamConnections.recording = nil }
        let listenFD = try LoopbackPorts.bound(port: 0)
        defer { close(listenFD) }
        #expect(listen(listenFD, 4) == 0)
        _ = fcntl(listenFD, F_SETFL, fcntl(listenFD, F_GETFL) | O_NONBLOCK)
        let origin = SocketAddress(ip: IPAddress("127.0.0.1")!, port: try LoopbackPorts.localPort(listenFD))
        let context = try TLSClientContext(trust: TrustStore(caFile: nil, caPath: nil))
        let connector = Connector(base: base, hostPort: "origin.test:\(origin.port)", addresses: [origin],
                                  timeoutMillis: 5_000, tls: (context, "origin.test")) { _ in }
        connector.start()
        var accepted: Int32 = -1
        defer { if accepted >= 0 { close(accepted) } }
        // Until the ClientHello has arrived: the connector is then handshaking on its TLS socket.
        let helloArrived = LoopDriver.run(base) {
            if accepted < 0 { accepted = accept(listenFD, nil, nil) }
            guard accepted >= 0 else { return false }
            var readable = pollfd(fd: accepted, events: Int16(POLLIN), revents: 0)
            return poll(&readable, 1, 0) == 1
        }
        #expect(helloArrived)
        let ipdirectSide = try #require(Self.peer(of: accepted))
        #expect(own.contains(peer: ipdirectSide, original: origin))
        connector.cancel()
        #expect(!own.contains(peer: ipdirectSide, original: origin))
    }

    static func peer(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getpeername(fd, address, &length) == 0 ? SocketAddress(sockaddr: address) : nil
            }
        }
    }
}
