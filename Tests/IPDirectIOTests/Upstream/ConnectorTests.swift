import CEvent
import Glibc
import Testing
@testable import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// The connector's race (RFC 8305) against real loopback sockets: a port nobody listens on refuses at once, a
/// listener whose backlog is full never answers a SYN (silent), a listening port connects.
@Suite(.serialized) struct ConnectorTests {
    /// Long enough that a silent address cannot win by luck, short enough to keep the tests quick.
    static let attemptDelayMillis = 100
    static let timeoutMillis = 400
    /// Longer than the loop driver waits: a connect that needs this delay or timeout to pass never finishes in
    /// a test, so only what the race does without waiting can make it finish.
    static let neverMillis = 60_000

    /// A port bound and listening on 127.0.0.1.
    final class Listener {
        let fd: Int32
        let port: UInt16
        /// Connections made to fill the backlog, so that further SYNs go unanswered.
        private var fillers: [Int32] = []

        init(backlog: Int32 = 16) throws {
            fd = try LoopbackPorts.bound(port: 0)
            guard listen(fd, backlog) == 0 else { throw FixtureError("listen: \(String(cString: strerror(errno)))") }
            port = try LoopbackPorts.localPort(fd)
        }

        /// A listener that answers no SYN: backlog 0, filled by connections nobody accepts. The kernel drops
        /// further SYNs (tcp_abort_on_overflow is 0 by default), so a connect there waits until its timeout.
        static func silent() throws -> Listener {
            let listener = try Listener(backlog: 0)
            for _ in 0..<2 {
                let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                var address = Glibc.sockaddr_in(port: listener.port)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                listener.fillers.append(client)
            }
            // The fillers' handshakes complete in the kernel before the test's own connect starts.
            usleep(50_000)
            return listener
        }

        var address: SocketAddress { SocketAddress(ip: IPAddress("127.0.0.1")!, port: port) }

        deinit {
            fillers.forEach { _ = close($0) }
            close(fd)
        }
    }

    /// A port that was free a moment ago and that nothing listens on: a connect there is refused.
    static func refusingAddress() throws -> SocketAddress {
        SocketAddress(ip: IPAddress("127.0.0.1")!, port: try LoopbackPorts.free(count: 1)[0])
    }

    struct Outcome {
        var result: Result<UpstreamConnection, ConnectFailure>
        var attemptsStarted: Int
        var winnerRank: Int?
    }

    func connect(_ addresses: [SocketAddress], timeoutMillis: Int = timeoutMillis,
                 attemptDelayMillis: Int = attemptDelayMillis) -> Outcome? {
        let base = EventBase()
        var result: Result<UpstreamConnection, ConnectFailure>?
        let connector = Connector(base: base, hostPort: "test.example:80", addresses: addresses,
                                  timeoutMillis: timeoutMillis, attemptDelayMillis: attemptDelayMillis) { result = $0 }
        connector.start()
        LoopDriver.run(base) { result != nil }
        guard let result else { return nil }
        let outcome = Outcome(result: result, attemptsStarted: connector.attemptsStarted, winnerRank: connector.winnerRank)
        if case .success(let connection) = result { connection.close() }
        return outcome
    }

    @Test func aRefusingAddressHandsOverToTheNextAtOnce() throws {
        let listener = try Listener()
        // Without the refusal starting the next attempt, the second address would wait for the attempt delay.
        let outcome = try #require(connect([try Self.refusingAddress(), listener.address],
                                           timeoutMillis: Self.neverMillis, attemptDelayMillis: Self.neverMillis))
        guard case .success = outcome.result else {
            Issue.record("no connection: \(outcome.result)")
            return
        }
        #expect(outcome.winnerRank == 2 && outcome.attemptsStarted == 2)
    }

    @Test func aSilentAddressIsRacedAfterTheAttemptDelayAndLoses() throws {
        let silent = try Listener.silent()
        let listener = try Listener()
        // The silent attempt never ends by itself here: the second address can only be started by the delay.
        let outcome = try #require(connect([silent.address, listener.address], timeoutMillis: Self.neverMillis))
        guard case .success = outcome.result else {
            Issue.record("no connection: \(outcome.result)")
            return
        }
        #expect(outcome.winnerRank == 2 && outcome.attemptsStarted == 2)
    }

    /// The loop times the attempt delay from the start of its turn, the attempt's own wait from the moment it
    /// began: started late in a busy turn, a silent address loses the race having seemingly waited less than
    /// the delay. It waited the whole delay all the same, and is quarantined as RFC 8305 §5 would have it.
    @Test func aSilentAddressTheDelayPassedOverIsQuarantinedEvenWhenStartedLateInATurn() throws {
        let silent = try Listener.silent()
        let listener = try Listener()
        let base = EventBase()
        let health = UpstreamHealth(settings: AddressHealthSettings(attemptDelayMicros: Int64(Self.attemptDelayMillis) * 1000))
        var result: Result<UpstreamConnection, ConnectFailure>?
        var connector: Connector?
        let busyTurn = Timer(base: base)
        busyTurn.action = {
            // The loop's time stays where the turn began; the attempt's start is read from the clock.
            usleep(UInt32(Self.attemptDelayMillis / 4 * 1000))
            connector = Connector(base: base, hostPort: "test.example:80", addresses: [silent.address, listener.address],
                                  timeoutMillis: Self.neverMillis, attemptDelayMillis: Self.attemptDelayMillis,
                                  health: health) { result = $0 }
            connector?.start()
        }
        busyTurn.schedule(afterMillis: 0)
        LoopDriver.run(base) { result != nil }
        guard case .success(let connection)? = result else {
            Issue.record("no connection: \(String(describing: result))")
            return
        }
        connection.close()
        #expect(connector?.winnerRank == 2)
        #expect(health.isQuarantined(silent.address))
        #expect(!health.isQuarantined(listener.address))
    }

    @Test func theFirstAddressWinsWhenItAnswers() throws {
        let first = try Listener()
        let second = try Listener()
        let outcome = try #require(connect([first.address, second.address], attemptDelayMillis: Self.neverMillis))
        guard case .success = outcome.result else {
            Issue.record("no connection: \(outcome.result)")
            return
        }
        #expect(outcome.winnerRank == 1 && outcome.attemptsStarted == 1)
    }

    @Test func everyAddressFailingNamesEachAttempt() throws {
        let refusing = try Self.refusingAddress()
        let silent = try Listener.silent()
        let outcome = try #require(connect([refusing, silent.address]))
        guard case .failure(let failure) = outcome.result, case .attempts(let attempts) = failure.cause else {
            Issue.record("expected a failure of every attempt: \(outcome.result)")
            return
        }
        #expect(attempts.map(\.address) == [refusing, silent.address])
        #expect("\(attempts[0].outcome)".contains("refused") && !attempts[0].timedOut, "\(attempts[0])")
        #expect(attempts[1].timedOut, "\(attempts[1])")
        #expect(!failure.timedOut, "one attempt was refused, so the connect as a whole did not just time out")
    }
}
