import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct ConnectFailureProxyStatusTests {
    static let a = SocketAddress("192.0.2.1:443")!
    static let b = SocketAddress("192.0.2.2:443")!

    static func failure(_ outcomes: [ConnectFailure.Attempt.Outcome]) -> ConnectFailure {
        let addresses = [a, b]
        return ConnectFailure(hostPort: "example.test:443", cause: .attempts(outcomes.enumerated().map {
            ConnectFailure.Attempt(address: addresses[$0.offset], outcome: $0.element)
        }))
    }

    @Test func aRefusedAttemptMakesTheWholeFailureARefusal() {
        let error = Self.failure([.hostUnreachable, .refused]).proxyError
        #expect(error.status == 502)
        #expect(error.kind == .connectionRefused)
    }

    @Test func attemptsThatWereNeitherRefusedNorTimedOutFindNoDestination() {
        let error = Self.failure([.networkUnreachable, .failed(errnoText: "Connection reset by peer")]).proxyError
        #expect(error.status == 502)
        #expect(error.kind == .destinationNotFound)
    }

    @Test func everyAttemptTimingOutIsAGatewayTimeout() {
        let error = Self.failure([.timedOut(millis: 250), .timedOut(millis: 250)]).proxyError
        #expect(error.status == 504)
        #expect(error.kind == .connectionTimeout)
        #expect(error.details == "cannot connect to example.test:443: 192.0.2.1:443 timed out after 250 ms; 192.0.2.2:443 timed out after 250 ms")
    }
}
