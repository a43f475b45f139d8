import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// Accepted connections that have sent nothing, with the real worker loop run on the test's thread: they wait
/// without a session, yet time out, are served, are drained and are counted as connections.
@Suite(.serialized) struct SilentClientTests {
    typealias Client = ClientSessionTests.Client

    /// Runs the loop until the proxy has closed `client`'s connection; true when it did.
    static func runUntilClosed(_ client: Client, _ worker: Worker) -> Bool {
        LoopDriver.run(worker.base) {
            var byte: UInt8 = 0
            return recv(client.fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
        }
    }

    /// A client connected to `server`'s one worker that has sent nothing yet, once the worker holds it as silent.
    static func silentClient(of server: Server) throws -> (Worker, Client) {
        let worker = server.workers[0]
        let client = try Client(server: server)
        #expect(LoopDriver.run(worker.base) { worker.silentClients.count == 1 })
        return (worker, client)
    }

    @Test func aConnectionThatSendsNothingHoldsNoSessionAndClosesAtTheHeadDeadline() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9, proxyKeys: "header_timeout = 0.2"))
        defer { ClientSessionTests.stop(server) }
        let (worker, client) = try Self.silentClient(of: server)
        #expect(worker.sessions.isEmpty)
        #expect(worker.metrics.snapshot.connectionsActive == 1)
        #expect(Self.runUntilClosed(client, worker), "closed at the head deadline, without an answer")
        #expect(worker.silentClients.isEmpty)
        #expect(worker.metrics.snapshot.connectionsActive == 0)
    }

    @Test func aSilentClientReusedForTheNextConnectionClosesOnlyAtThatConnectionsHeadDeadline() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9, proxyKeys: "header_timeout = 0.3"))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        var first: Client? = try Self.silentClient(of: server).1
        let waitedBefore = ObjectIdentifier(worker.silentClients.all[0])
        first = nil
        #expect(LoopDriver.run(worker.base) { worker.metrics.snapshot.connectionsActive == 0 })
        LoopDriver.run(worker.base, forMillis: 150)

        let (_, second) = try Self.silentClient(of: server)
        #expect(ObjectIdentifier(worker.silentClients.all[0]) == waitedBefore, "the first connection's silent client waits for this one")
        // Past the first connection's deadline, well before the second's.
        LoopDriver.run(worker.base, forMillis: 200)
        #expect(worker.silentClients.count == 1)
        #expect(Self.runUntilClosed(second, worker))
        #expect(worker.silentClients.isEmpty && first == nil)
    }

    @Test func aRequestSentAfterAPauseIsServedNormally() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port))
        defer { ClientSessionTests.stop(server) }
        let (worker, client) = try Self.silentClient(of: server)
        LoopDriver.run(worker.base, forMillis: 50)
        #expect(client.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(worker.silentClients.isEmpty)
        #expect(worker.metrics.snapshot.connectionsActive == 1)
        #expect(origin.receivedRequests.count == 1)
    }

    @Test func aStopClosesConnectionsThatSentNothing() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9))
        defer { ClientSessionTests.stop(server) }
        let (worker, client) = try Self.silentClient(of: server)
        var drained = false
        worker.beginDrain { drained = true }
        #expect(drained, "nothing was in flight")
        #expect(worker.silentClients.isEmpty)
        #expect(Self.runUntilClosed(client, worker))
        #expect(worker.metrics.snapshot.connectionsActive == 0)
    }

    @Test func maxConnectionsCountsConnectionsThatSentNothing() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9, proxyKeys: "max_connections = 1"))
        defer { ClientSessionTests.stop(server) }
        let (worker, silent) = try Self.silentClient(of: server)
        let refused = try Client(server: server)
        #expect(refused.receive { $0.contains("\r\n\r\n") }.hasPrefix("HTTP/1.1 503"))
        #expect(worker.silentClients.count == 1)
        _ = silent
    }
}
