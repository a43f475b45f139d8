import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A session whose connection ended serves a later connection of its worker as a new session would: a login,
/// the request and the peer of the connection before are gone, a timer it armed does not fire into the next
/// one, and a session something still holds is not handed out.
@Suite(.serialized) struct ClientSessionReuseTests {
    typealias Client = ClientSessionTests.Client

    static let credentials = "Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n"  // alice:s3cret

    /// Closes `client` and runs the loop until its worker has ended every connection and keeps a session.
    static func endConnection(of client: inout Client?, at worker: Worker) {
        client = nil
        #expect(LoopDriver.run(worker.base) {
            worker.metrics.snapshot.connectionsActive == 0 && worker.spareSessions.count > 0
        })
    }

    /// Serves one GET from `origin` on a new connection of `server`'s worker, shows `served` its session, then
    /// ends the connection.
    static func serveOneRequest(_ server: Server, from origin: ScriptedHTTPServer,
                                served: (ClientSession) -> Void = { _ in }) throws {
        let worker = server.workers[0]
        var client: Client? = try Client(server: server)
        #expect(client?.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200") == true)
        if let session = worker.sessions.all.first { served(session) }
        endConnection(of: &client, at: worker)
    }

    /// The one session of `worker`, once it has one.
    static func onlySession(of worker: Worker) -> ObjectIdentifier? {
        guard LoopDriver.run(worker.base, until: { worker.sessions.count == 1 }) else { return nil }
        return ObjectIdentifier(worker.sessions.all[0])
    }

    /// A GET for origin.test, with `fields` added to its head.
    static func get(port: UInt16, fields: String = "") -> String {
        "GET http://origin.test:\(port)/ HTTP/1.1\r\nHost: origin.test:\(port)\r\n\(fields)\r\n"
    }

    @Test func aSessionReusedAfterALoginAsksTheNextConnectionForCredentialsAgain() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let users = PasswordFileReaderTests.write("alice:\(try CredentialServiceTests.bcrypt("s3cret"))\n")
        defer { unlink(users) }
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port,
                                                                      accessKeys: "auth_file = \"\(users)\""))
        defer { ClientSessionTests.stop(server) }
        server.credentials.start()
        defer { server.credentials.stop() }
        let worker = server.workers[0]
        var first: Client? = try Client(server: server)
        first?.send(Self.get(port: origin.port, fields: Self.credentials))
        let answer = first?.receive { $0.hasSuffix("\r\n\r\nok") } ?? ""
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        let loggedIn = Self.onlySession(of: worker)
        Self.endConnection(of: &first, at: worker)

        let second = try Client(server: server)
        // Half a head, so that the session exists and waits before it answers.
        second.send("GET http://origin.test:\(origin.port)/ HTTP/1.1\r\n")
        #expect(Self.onlySession(of: worker) == loggedIn, "the logged-in connection's session serves this one")
        second.send("Host: origin.test:\(origin.port)\r\n\r\n")
        #expect(second.receiveHead().hasPrefix("HTTP/1.1 407"))
        #expect(origin.receivedRequests.count == 1)
    }

    @Test func aReusedSessionStartsWithNothingOfTheConnectionBefore() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        var servedPeer: String?
        // The served connection's peer text is made, as its log lines would make it.
        try Self.serveOneRequest(server, from: origin) { servedPeer = $0.peer }
        let reused = try #require(worker.spareSessions.take())
        #expect(worker.spareSessions.take() == nil)

        let (reusedFD, reusedFar) = try SpareSocketsTests.socketPair()
        let (freshFD, freshFar) = try SpareSocketsTests.socketPair()
        defer { Glibc.close(reusedFar); Glibc.close(freshFar) }
        let peer = SocketAddress(ip: IPAddress("192.0.2.7")!, port: 4242)
        let settings = worker.connectionSettings
        let grownActionCapacity = reused.machine.actions.capacity
        reused.reopen(id: 7, client: try SpareSocketsTests.socket(on: reusedFD, from: worker.spareSockets), peerAddress: peer,
                      configuration: settings, opening: ClientSession.opening(for: settings, peerAddress: peer, worker: worker))
        let fresh = ClientSession(worker: worker, id: 7, client: try SpareSocketsTests.socket(on: freshFD, from: worker.spareSockets),
                                  peerAddress: peer, configuration: settings,
                                  opening: ClientSession.opening(for: settings, peerAddress: peer, worker: worker))
        // Every property but the socket and the timer event, which are the session's own, reads as a new session's.
        #expect(Self.properties(of: reused, skipping: ["client", "wakeup", "machine"])
                == Self.properties(of: fresh, skipping: ["client", "wakeup", "machine"]))
        #expect(Self.properties(of: reused.machine, skipping: ["actions", "payloads"])
                == Self.properties(of: fresh.machine, skipping: ["actions", "payloads"]))
        #expect(Self.properties(of: reused.machine.payloads, skipping: ["requestHead", "responseHead"])
                == Self.properties(of: fresh.machine.payloads, skipping: ["requestHead", "responseHead"]))
        #expect(reused.machine.actions.isEmpty)
        #expect(reused.machine.payloads.requestHead.isEmpty && reused.machine.payloads.responseHead.isEmpty)
        #expect(reused.machine.actions.capacity == grownActionCapacity, "the room grown before is kept")
        #expect(servedPeer != nil && servedPeer != reused.peer)
        #expect(reused.peer == "192.0.2.7:4242")
    }

    @Test func aSessionStillHeldWhenTheNextConnectionComesIsNotReused() throws {
        let origin = try ScriptedHTTPServer(.respond(response: ClientSessionTests.originResponse, closeAfterMillis: nil))
        let server = try Server(config: try ClientSessionTests.config(originPort: origin.port))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        var held: ClientSession?
        // As a lookup or connect in flight would hold it.
        try Self.serveOneRequest(server, from: origin) { held = $0 }
        let second = try Client(server: server)
        #expect(second.get(port: origin.port, body: "ok").hasPrefix("HTTP/1.1 200"))
        #expect(worker.sessions.all.first.map(ObjectIdentifier.init) != held.map(ObjectIdentifier.init))
        #expect(held?.isClosed == true, "the held session was left as its connection ended")
    }

    @Test func aReusedSessionTimesOutOnlyAtItsOwnHeadDeadline() throws {
        let server = try Server(config: try ClientSessionTests.config(originPort: 9, proxyKeys: "header_timeout = 0.3"))
        defer { ClientSessionTests.stop(server) }
        let worker = server.workers[0]
        var first: Client? = try Client(server: server)
        // Half a head arms the session's head deadline; the client leaves before it passes.
        first?.send("GET http://origin.test:9/ HTTP/1.1\r\n")
        let armedBefore = Self.onlySession(of: worker)
        Self.endConnection(of: &first, at: worker)
        LoopDriver.run(worker.base, forMillis: 150)

        let second = try Client(server: server)
        second.send("GET http://origin.test:9/ HTTP/1.1\r\n")
        #expect(Self.onlySession(of: worker) == armedBefore)
        // Past the first connection's deadline, well before the second's.
        LoopDriver.run(worker.base, forMillis: 200)
        #expect(worker.sessions.count == 1, "still waiting for the rest of its head")
        #expect(second.receiveHead().hasPrefix("HTTP/1.1 408"))
    }

    /// Each stored property of `value` by name, as text, but for those named in `skipped`.
    static func properties(of value: Any, skipping skipped: Set<String>) -> [String: String] {
        var properties: [String: String] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label, !skipped.contains(label) else { continue }
            properties[label] = String(describing: child.value)
        }
        return properties
    }
}
