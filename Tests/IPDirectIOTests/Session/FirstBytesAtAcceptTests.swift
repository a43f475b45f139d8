import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A client whose first bytes are already there when its connection is accepted (most send the request right
/// after the handshake) becomes a session at once, without waiting silent for the next turn of the loop; one
/// that sent a FIN first is closed at once. The real worker loop runs on the test's thread.
@Suite(.serialized) struct FirstBytesAtAcceptTests {
    typealias Client = ClientSessionTests.Client

    /// Runs the worker until `done`, noting whether it ever held a silent connection.
    static func run(_ worker: Worker, until done: () -> Bool) -> (done: Bool, heldSilent: Bool) {
        var heldSilent = false
        let finished = LoopDriver.run(worker.base) {
            heldSilent = heldSilent || !worker.silentClients.isEmpty
            return done()
        }
        return (finished, heldSilent)
    }

    @Test func aRequestSentWithTheHandshakeIsServedWithoutASilentWait() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        let client = try Client(server: server)
        let request = "GET http://origin.test:\(origin.port)/ HTTP/1.1\r\nHost: origin.test:\(origin.port)\r\n\r\n"
        #expect(Glibc.send(client.fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) == request.utf8.count)
        var response = ""
        let served = Self.run(worker) {
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let read = recv(client.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if read > 0 { response += String(decoding: chunk[0..<read], as: UTF8.self) }
            return response.hasSuffix("\r\n\r\nok")
        }
        #expect(served.done && response.hasPrefix("HTTP/1.1 200"), "\(response)")
        #expect(!served.heldSilent)
        #expect(worker.sessions.count == 1)
    }

    @Test func aHeadLongerThanTheReadAtTheAcceptArrivesWhole() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port))
        defer { ClientSessionTests.stop(server) }
        let client = try Client(server: server)
        let filler = String(repeating: "f", count: 6_000)
        client.send("GET http://origin.test:\(origin.port)/ HTTP/1.1\r\nHost: origin.test:\(origin.port)\r\nX-Filler: \(filler)\r\n\r\n")
        #expect(client.receive { $0.hasSuffix("\r\n\r\nok") }.hasPrefix("HTTP/1.1 200"))
        let forwarded = String(decoding: try #require(origin.receivedRequests.first), as: UTF8.self)
        #expect(forwarded.contains("X-Filler: \(filler)\r\n"))
    }

    /// The session's timer is set only after the first bytes were handled (most requests have cancelled their
    /// head deadline by then): half a head that came with the handshake still meets the deadline.
    @Test func halfAHeadSentWithTheHandshakeStillMeetsTheHeadDeadline() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9, proxyKeys: "header_timeout = 0.2"))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        let client = try Client(server: server)
        client.send("GET http://origin.test:9/ HTTP/1.1\r\nHost: origin.test:9\r\n")
        let started = MonotonicClock.nowMicros()
        let opened = Self.run(worker) { worker.sessions.count == 1 }
        #expect(opened.done && !opened.heldSilent)
        #expect(worker.sessions.all[0].wakeupTimer.setForMicros != nil, "the head deadline is set once the bytes were read")
        var answer = ""
        let closed = Self.run(worker) {
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let read = recv(client.fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if read > 0 { answer += String(decoding: chunk[0..<read], as: UTF8.self) }
            return read == 0
        }
        #expect(closed.done && answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(MonotonicClock.nowMicros() - started >= 150_000)
    }

    @Test func aConnectionClosedBeforeItsFirstByteIsClosedWithoutASession() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        let client = try Client(server: server)
        shutdown(client.fd, Int32(SHUT_WR))
        let ended = Self.run(worker) {
            worker.metrics.snapshot.connectionsAccepted == 1 && worker.metrics.snapshot.connectionsActive == 0
        }
        #expect(ended.done)
        #expect(worker.sessions.isEmpty && worker.silentClients.isEmpty)
        var byte: UInt8 = 0
        #expect(recv(client.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0, "the proxy closed its end")
    }
}
