import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// Local clients cannot shut the admin listener, on a real socket: a request head must arrive whole within
/// `[admin] header_timeout` however its bytes trickle in, and one address holds at most
/// `[admin] max_connections_per_client` connections.
@Suite struct AdminServerSlowClientTests {
    /// Short, so the deadline cases take a fraction of a second each.
    static let headTimeoutMillis = 300
    /// For the case that waits between requests, each wait a good part of it.
    static let longerHeadTimeoutMillis = 600
    static let pauseBetweenRequestsMillis = 250
    /// A head that never ends: its bytes go out one at a time and it has no empty line.
    static let trickledHead = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + String(repeating: "x", count: 200)
    /// Far below the deadline: a deadline restarted by every byte would never pass while the trickle lasts.
    static let trickleIntervalMillis = 20
    static let perClientLimit = 2

    /// The `[admin]` line that sets the head deadline, written in seconds.
    static func headTimeout(millis: Int) -> String {
        "header_timeout = \(Double(millis) / 1000)"
    }

    static func millis(since startMicros: Int64) -> Int {
        Int((MonotonicClock.nowMicros() - startMicros) / 1000)
    }

    @Test func aConnectionThatSendsNothingIsClosedUnansweredAtTheHeadDeadline() throws {
        let admin = try RunningAdminServer(adminKeys: Self.headTimeout(millis: Self.headTimeoutMillis))
        defer { admin.stop() }
        let started = MonotonicClock.nowMicros()
        let client = try admin.connect()
        #expect(client.closedByPeer(), "closed, with nothing written to a client that asked nothing")
        #expect(Self.millis(since: started) >= Self.headTimeoutMillis)
    }

    @Test func aTricklingHeadIsAnswered408AtTheDeadlineCountedFromTheAccept() throws {
        let admin = try RunningAdminServer(adminKeys: Self.headTimeout(millis: Self.headTimeoutMillis))
        defer { admin.stop() }
        let started = MonotonicClock.nowMicros()
        let client = try admin.connect()
        var unsent = Self.trickledHead[...]
        var arrival = LoopbackHTTPClient.Arrival.nothing
        while arrival == .nothing, let byte = unsent.popFirst() {
            guard client.send(String(byte)) else { break }
            arrival = client.wait(millis: Self.trickleIntervalMillis)
        }
        let endedAfterMillis = Self.millis(since: started)
        #expect(!unsent.isEmpty, "the listener ended the connection while bytes were still trickling in")
        #expect(endedAfterMillis >= Self.headTimeoutMillis)
        let response = try #require(client.readResponse())
        #expect(response.statusLine == "HTTP/1.1 408 Request Timeout")
        #expect(response.field("Connection") == "close")
        #expect(response.body == "request head not received within \(Self.headTimeoutMillis) ms\n")
        #expect(client.closedByPeer())
    }

    @Test func anIdleKeptAliveConnectionIsClosedUnansweredAtTheDeadlineAfterItsResponse() throws {
        let admin = try RunningAdminServer(adminKeys: Self.headTimeout(millis: Self.headTimeoutMillis))
        defer { admin.stop() }
        let client = try admin.connect()
        let asked = MonotonicClock.nowMicros()
        client.send(admin.get("/healthz"))
        #expect(client.readResponse()?.status == 200)
        #expect(client.closedByPeer(), "closed without a 408: the client had begun no request")
        #expect(Self.millis(since: asked) >= Self.headTimeoutMillis)
    }

    @Test func theDeadlineStartsAgainOnceAResponseIsWritten() throws {
        let admin = try RunningAdminServer(adminKeys: Self.headTimeout(millis: Self.longerHeadTimeoutMillis))
        defer { admin.stop() }
        let client = try admin.connect()
        let started = MonotonicClock.nowMicros()
        // Each pause is well under the deadline; together they are well past it.
        for _ in 0..<4 {
            #expect(client.wait(millis: Self.pauseBetweenRequestsMillis) == .nothing)
            client.send(admin.get("/healthz"))
            #expect(client.readResponse()?.status == 200)
        }
        #expect(Self.millis(since: started) > Self.longerHeadTimeoutMillis)
    }

    /// `count` connections from 127.0.0.1, each answered once, so the listener counts them all.
    static func held(_ count: Int, by admin: RunningAdminServer) throws -> [LoopbackHTTPClient] {
        try (0..<count).map { _ in
            let (client, status) = try admin.connectionAnsweredOnce()
            #expect(status == 200)
            return client
        }
    }

    /// A connection refused on accept: a 503 saying `reason`, unasked, then the close.
    static func expectRefusedOnAccept(_ client: LoopbackHTTPClient, saying reason: String) throws {
        let refusal = try #require(client.readResponse())
        #expect(refusal.statusLine == "HTTP/1.1 503 Service Unavailable")
        #expect(refusal.field("Connection") == "close")
        #expect(refusal.body == reason + "\n")
        #expect(client.closedByPeer())
    }

    @Test func aConnectionPastThePerClientCapIsAnswered503AndClosedWhileOthersAreServed() throws {
        let admin = try RunningAdminServer(adminKeys: "max_connections_per_client = \(Self.perClientLimit)")
        defer { admin.stop() }
        let held = try Self.held(Self.perClientLimit, by: admin)
        try Self.expectRefusedOnAccept(try admin.connect(),
                                       saying: "too many admin connections from this address (at most \(Self.perClientLimit))")
        #expect(try admin.connectionAnsweredOnce(from: "127.0.0.2").status == 200, "another address has its own count")
        for client in held {
            client.send(admin.get("/healthz"))
            #expect(client.readResponse()?.status == 200, "the connections under the cap are still served")
        }
    }

    @Test func aConnectionPastTheListenersTotalIsAnswered503() throws {
        let total = AdminSettings.maxConnections
        let admin = try RunningAdminServer(adminKeys: "max_connections_per_client = \(total)")
        defer { admin.stop() }
        let held = try Self.held(total, by: admin)
        try withExtendedLifetime(held) {
            try Self.expectRefusedOnAccept(try admin.connect(from: "127.0.0.2"), saying: "too many admin connections (at most \(total))")
        }
    }

    @Test func aClosedConnectionGivesItsSlotUnderThePerClientCapBack() throws {
        let admin = try RunningAdminServer(adminKeys: "max_connections_per_client = 1")
        defer { admin.stop() }
        var held: [LoopbackHTTPClient] = try Self.held(1, by: admin)
        #expect(try admin.connectionAnsweredOnce().status == 503)
        held.removeAll()
        // The listener sees the close a moment later; until then a new connection is still refused.
        let started = MonotonicClock.nowMicros()
        var status: Int?
        while status != 200, Self.millis(since: started) < LoopDriver.defaultLimitMillis {
            status = try admin.connectionAnsweredOnce().status
        }
        #expect(status == 200)
    }
}
