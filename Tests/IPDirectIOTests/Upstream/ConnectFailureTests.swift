import Glibc
import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct ConnectFailureTests {
    typealias Outcome = ConnectFailure.Attempt.Outcome

    @Test(arguments: [
        (ECONNREFUSED, Outcome.refused, "refused"),
        (ENETUNREACH, .networkUnreachable, "network unreachable"),
        (EHOSTUNREACH, .hostUnreachable, "host unreachable"),
    ])
    func errnoValuesTheConnectorTellsApartGetTheirOwnCase(code: Int32, expected: Outcome, text: String) {
        #expect(Outcome(errno: code) == expected)
        #expect(Outcome(errno: code).description == text)
        #expect(Connector.errnoText(code) == text)
    }

    @Test(arguments: [ECONNRESET, ETIMEDOUT, EADDRNOTAVAIL])
    func otherErrnoValuesCarryTheSystemText(code: Int32) {
        let text = String(cString: strerror(code))
        #expect(Outcome(errno: code) == .failed(errnoText: text))
        #expect(Outcome(errno: code).description == text)
    }

    @Test func outcomesWithoutAnErrnoReadAsBefore() {
        #expect(Outcome.timedOut(millis: 250).description == "timed out after 250 ms")
        #expect(Outcome.noSocket.description == "no socket")
    }

    @Test func onlyTheConnectTimerCountsAsATimeout() {
        let address = SocketAddress("192.0.2.1:443")!
        #expect(ConnectFailure.Attempt(address: address, outcome: .timedOut(millis: 250)).timedOut)
        #expect(!ConnectFailure.Attempt(address: address, outcome: Outcome(errno: ETIMEDOUT)).timedOut)
    }

    @Test func describesEveryAttemptWithItsAddress() {
        let failure = ConnectFailure(hostPort: "example.test:443", cause: .attempts([
            ConnectFailure.Attempt(address: SocketAddress("192.0.2.1:443")!, outcome: .refused),
            ConnectFailure.Attempt(address: SocketAddress("[2001:db8::1]:443")!, outcome: .networkUnreachable),
        ]))
        #expect(failure.description
            == "cannot connect to example.test:443: 192.0.2.1:443 refused; [2001:db8::1]:443 network unreachable")
    }
}
