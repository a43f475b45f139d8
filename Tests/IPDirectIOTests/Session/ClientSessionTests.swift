import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// The client session with its real worker loop, run on the test's thread: a nonblocking loopback client on
/// one side, scripted origins on the other. Pooled upstream reuse, parking a kept-alive connection and waking
/// it, a reload under an open connection, and a CONNECT tunnel handed over to splice, holding no head storage.
@Suite(.serialized) struct ClientSessionTests {
    static let originResponse = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
    static let secondOriginResponse = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ntwo".utf8)
    /// Longer than a kept-alive connection waits before it parks (`SessionRules.parkAfterMillis`).
    static let idleLongEnoughToParkMillis = 50

    static func config(originPort: UInt16, proxyKeys: String = "", accessKeys: String = "") throws -> Config {
        try Config.parse("""
            [proxy]
            workers = 1
            listen = ["127.0.0.1:0"]
            access_log = "off"
            \(proxyKeys)
            [resolver]
            order = ["hosts"]
            [hosts]
            "origin.test" = "127.0.0.1"
            [access]
            allow_private_upstreams = true
            connect_ports = [\(originPort)]
            \(accessKeys)
            [admin]
            listen = []
            """).get()
    }

    /// Ends the worker as the server does when it stops: its loop returns and closes the sessions, parked
    /// clients and pooled connections while its event base still exists.
    static func stop(_ server: Server) {
        let worker = server.workers[0]
        worker.requestStop()
        worker.run()
    }

    /// A client of the proxy's first worker, whose loop the test runs.
    final class Client {
        let fd: Int32
        let base: EventBase
        private(set) var received: [UInt8] = []

        init(server: Server) throws {
            base = server.workers[0].base
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let status = server.listenAddresses[0].withSockaddr { Glibc.connect(fd, $0, $1) }
            guard status == 0 || errno == EINPROGRESS else { throw FixtureError("connect: \(String(cString: strerror(errno)))") }
        }

        deinit { close(fd) }

        func send(_ text: String) {
            var bytes = Array(text.utf8)
            var sent = 0
            LoopDriver.run(base) {
                let written = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                if written > 0 { sent += written }
                return sent == bytes.count
            }
            bytes.removeAll()
        }

        /// Runs the loop until what arrived from now on satisfies `done` (or the driver's limit); returns it.
        func receive(until done: (String) -> Bool) -> String {
            let start = received.count
            var text = ""
            LoopDriver.run(base) {
                var chunk = [UInt8](repeating: 0, count: 4_096)
                let read = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if read > 0 { received += chunk[0..<read] }
                text = String(decoding: received[start...], as: UTF8.self)
                return done(text)
            }
            return text
        }

        /// A response head, from the status line to the empty line.
        func receiveHead() -> String {
            receive { $0.contains("\r\n\r\n") }
        }

        /// One absolute-form GET for origin.test on this connection, and the response up to its body `body`.
        func get(port: UInt16, body: String) -> String {
            send("GET http://origin.test:\(port)/ HTTP/1.1\r\nHost: origin.test:\(port)\r\n\r\n")
            return receive { $0.hasSuffix("\r\n\r\n" + body) }
        }

        /// A CONNECT to origin.test on this connection, and the proxy's answer head.
        func openTunnel(port: UInt16) -> String {
            send("CONNECT origin.test:\(port) HTTP/1.1\r\nHost: origin.test:\(port)\r\n\r\n")
            return receiveHead()
        }
    }

    @Test func aSecondRequestReusesThePooledOriginConnection() throws {
        let origin = try ScriptedHTTPServer(.respond(response: Self.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try Self.config(originPort: origin.port))
        defer { Self.stop(server) }
        let first = try Client(server: server)
        #expect(first.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        let second = try Client(server: server)
        #expect(second.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(origin.acceptedCount == 1)
        #expect(origin.receivedRequests.count == 2)
    }

    @Test func aKeptAliveConnectionParksWhenIdleAndWakesForItsNextRequest() throws {
        let origin = try ScriptedHTTPServer(.respond(response: Self.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try Self.config(originPort: origin.port))
        defer { Self.stop(server) }
        let worker = server.workers[0]
        let client = try Client(server: server)
        #expect(client.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(LoopDriver.run(worker.base) { worker.metrics.snapshot.connectionsParked == 1 })
        LoopDriver.run(worker.base, forMillis: Self.idleLongEnoughToParkMillis)
        #expect(client.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(worker.metrics.snapshot.connectionsActive == 1)
        #expect(origin.receivedRequests.count == 2)
    }

    @Test func aReloadLeavesAnOpenConnectionOnTheSettingsItHad() throws {
        let before = try ScriptedHTTPServer(.respond(response: Self.originResponse, closeAfterMillis: nil))
        let after = try ScriptedHTTPServer(.respond(response: Self.secondOriginResponse, closeAfterMillis: nil))
        let server = try Server(config: try Self.config(originPort: before.port))
        defer { Self.stop(server) }
        let worker = server.workers[0]
        let open = try Client(server: server)
        let connect = "CONNECT origin.test:\(before.port) HTTP/1.1\r\nHost: origin.test:\(before.port)\r\n\r\n"
        let tunnelOpenBefore = try Client(server: server)
        #expect(open.get(port: before.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        // The reloaded configuration allows CONNECT only to the second origin's port.
        worker.apply(try Self.config(originPort: after.port), tls: worker.connectionSettings.tls)
        #expect(open.get(port: before.port, body: "ok").hasPrefix("HTTP/1.1 200"), "an open connection keeps going")
        tunnelOpenBefore.send(connect)
        #expect(tunnelOpenBefore.receiveHead().hasPrefix("HTTP/1.1 200"),
                "a connection accepted before the reload keeps the connect_ports it had")
        let tunnelAfter = try Client(server: server)
        tunnelAfter.send(connect)
        #expect(tunnelAfter.receiveHead().hasPrefix("HTTP/1.1 403"), "a new connection takes the reloaded connect_ports")
    }

    @Test func aConnectTunnelCarriesBytesBothWays() throws {
        let origin = try ScriptedHTTPServer(.respond(response: Self.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try Self.config(originPort: origin.port))
        defer { Self.stop(server) }
        let client = try Client(server: server)
        let established = client.openTunnel(port: origin.port)
        #expect(established.hasPrefix("HTTP/1.1 200"), "\(established)")
        client.send("GET / HTTP/1.1\r\nHost: origin.test\r\n\r\n")
        let relayed = client.receive { $0.hasSuffix("\r\n\r\nok") }
        #expect(relayed == String(decoding: Self.originResponse, as: UTF8.self), "the origin's bytes, untouched")
        #expect(origin.receivedRequests.count == 1)
        #expect(server.workers[0].metrics.snapshot.tunnelsActive == 1)
        #expect(server.workers[0].metrics.snapshot.splicedBytes > 0, "the tunnel was handed to the kernel relay")
    }

    @Test func connectionsParseTheirHeadsInTheirWorkersOneFieldStorage() throws {
        let origin = try ScriptedHTTPServer(.respond(response: Self.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try Self.config(originPort: origin.port))
        defer { Self.stop(server) }
        let first = try Client(server: server)
        #expect(first.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        // Read once the worker has answered and waits again: no head is being parsed.
        let storage = server.workers[0].headFields.withUnsafeBufferPointer { $0.baseAddress }
        let second = try Client(server: server)
        #expect(second.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(storage != nil && server.workers[0].headFields.withUnsafeBufferPointer { $0.baseAddress } == storage)
    }
}
