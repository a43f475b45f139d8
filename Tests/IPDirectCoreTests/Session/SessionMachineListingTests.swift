import Testing
@testable import IPDirectCore

/// What `GET /connections` shows of a session, and an operator's close.
@Suite struct SessionMachineListingTests {
    static let client = SocketAddress(ip: IPAddress("127.0.0.1")!, port: 50_000)

    @Test func aTunnelIsListedWithItsTargetUpstreamAttemptsBytesAndStart() {
        var script = SessionScript()
        _ = script.run(SessionScript.openTunnel + [.relayed(.client, 100), .relayed(.upstream, 2000)])
        let row = script.machine.listing(id: 7, client: Self.client)
        #expect(row.id == 7)
        #expect(row.client == Self.client)
        #expect(row.mode == .connect)
        #expect(row.phase == .tunneling)
        #expect(row.authority == UpstreamHostKey(host: "a.test", port: 443))
        #expect(row.upstream == SessionScript.address)
        #expect(row.rank == 1)
        #expect(row.attempts == 1)
        #expect(row.bytesFromClient == UInt64(Heads.connect.utf8.count) + 100)
        #expect(row.bytesToClient == 39 + 2000)
        #expect(row.startMicros == SessionScript.startMicros)
    }

    @Test func aPlainRequestIsListedAsHTTPWhileItWaitsForItsResponse() {
        var script = SessionScript()
        _ = script.run(SessionScript.sentGet)
        let row = script.machine.listing(id: 1, client: nil)
        #expect(row.mode == .http)
        #expect(row.phase == .awaitingResponse)
        #expect(row.authority == UpstreamHostKey(host: "a.test", port: 80))
    }

    @Test func aConnectionBetweenRequestsShowsWhoAndHowButNoExchange() {
        var script = SessionScript()
        _ = script.run([.start])
        let row = script.machine.listing(id: 1, client: Self.client)
        #expect(row.mode == .http)
        #expect(row.phase == .readingHead)
        #expect(row.authority == nil && row.upstream == nil && row.startMicros == nil)
        #expect(row.bytesFromClient == 0)
    }

    @Test func aSOCKSClientIsListedAsSOCKSFromItsGreeting() {
        var script = SessionScript()
        _ = script.run([.start, .socksVersion(5)])
        #expect(script.machine.listing(id: 1, client: nil).mode == .socks5)
        var four = SessionScript()
        _ = four.run([.start, .socksVersion(4)])
        #expect(four.machine.listing(id: 1, client: nil).mode == .socks4)
    }

    @Test func aRedirectedConnectionIsTransparentWithItsOriginalDestinationWhileSniffing() {
        let original = SocketAddress(ip: IPAddress("198.51.100.9")!, port: 443)
        var script = SessionScript(redirectedTo: original)
        _ = script.run([.start])
        let row = script.machine.listing(id: 3, client: Self.client)
        #expect(row.mode == .transparent)
        #expect(row.phase == .sniffing)
        #expect(row.original == original)
    }

    @Test func anOperatorsCloseClosesBothSidesAndLogsTheExchangeWithWhy() {
        var script = SessionScript()
        _ = script.run(SessionScript.openTunnel)
        script.machine.closedByOperator()
        let actions = Array(script.machine.actions)
        #expect(actions == [.logExchange, .close])
        #expect(script.machine.record.note == "closed through the admin API")
        #expect(script.machine.phase == .closed)
    }
}
