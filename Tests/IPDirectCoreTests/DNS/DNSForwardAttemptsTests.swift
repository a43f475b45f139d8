import Testing
@testable import IPDirectCore

/// Each forward server in turn over UDP, TCP after a truncated answer, SERVFAIL when none is left.
@Suite struct DNSForwardAttemptsTests {
    static let first = SocketAddress("192.0.2.53:53")!
    static let second = SocketAddress("198.51.100.53:5353")!

    func attempts(_ servers: [SocketAddress] = [first, second]) -> DNSForwardAttempts {
        DNSForwardAttempts(relayed: DNSRelayedQuery(client: DNSRelayedQueryTests.query(), upstreamID: 0xA5A5),
                           servers: servers, https: .stripHints)
    }

    @Test func aTimeoutMovesToTheNextServerAndTheLastOneEndsInFailure() {
        var attempts = attempts()
        #expect(attempts.start() == .sendUDP(Self.first))
        #expect(attempts.timedOut() == .sendUDP(Self.second))
        guard case .fail(let reason) = attempts.timedOut() else {
            Issue.record("did not fail")
            return
        }
        #expect(reason.contains("192.0.2.53:53/udp: no answer") && reason.contains("198.51.100.53:5353/udp: no answer"))
    }

    @Test func aTruncatedAnswerIsAskedAgainOverTCPFromTheSameServer() {
        var attempts = attempts()
        _ = attempts.start()
        #expect(attempts.received(DNSRelayedQueryTests.reply(flags: 0x8380)) == .sendTCP(Self.first))
        guard case .answer(let response, _, let server) = attempts.received(DNSRelayedQueryTests.reply()) else {
            Issue.record("no answer")
            return
        }
        #expect(response.id == 0x1234 && server == "192.0.2.53:53/tcp")
    }

    @Test func aStrayDatagramIsIgnoredButAnUnusableAnswerMovesOn() {
        var attempts = attempts()
        _ = attempts.start()
        #expect(attempts.received(DNSRelayedQueryTests.reply(id: 1)) == .keepWaiting)
        #expect(attempts.received([0xA5, 0xA5]) == .sendUDP(Self.second))
        #expect(attempts.failed("connection refused") != .keepWaiting)
    }

    @Test func withoutServersItFailsAtOnce() {
        var attempts = attempts([])
        #expect(attempts.start() == .fail(reason: "no forward server"))
    }
}
