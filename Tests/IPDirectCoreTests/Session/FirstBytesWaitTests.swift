import Testing
@testable import IPDirectCore

/// A connection accepted with nothing received waits without a session, yet ends as a fresh session would:
/// at the head deadline from the accept, or at once when the daemon stops.
@Suite struct FirstBytesWaitTests {
    static let acceptedAt: Int64 = 5_000_000_000

    static func rules(headerTimeoutMs: Int = 2_500) -> SessionRules {
        var config = Config()
        config.proxy.headerTimeoutMs = headerTimeoutMs
        return SessionRules(config: config, ownEndpoints: OwnEndpoints())
    }

    @Test func waitsAsLongAsAFreshSessionsHeadDeadline() {
        #expect(FirstBytesWait.waitMillis(Self.rules()) == 2_500)
    }

    @Test func aSilentConnectionClosesAtTheHeadDeadlineAndReportsIt() {
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: Self.acceptedAt)
        #expect(wait.deadlinePassed(now: Self.acceptedAt + 2_500_000) == .close(timedOut: .header))
    }

    @Test func aTimerFiringEarlyWaitsForTheRestOfTheDeadline() {
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: Self.acceptedAt)
        #expect(wait.deadlinePassed(now: Self.acceptedAt + 2_499_000) == .wait(millis: 2))
    }

    @Test func aStopClosesASilentConnectionAtOnceWithoutATimeout() {
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: Self.acceptedAt)
        #expect(wait.drainRequested() == .close(timedOut: nil))
    }

    @Test func aSilentConnectionEndsAsAFreshSessionThatReceivedNothing() {
        var script = SessionScript { $0.proxy.headerTimeoutMs = 2_500 }
        let session = script.all([.start, .wait(millis: 2_500), .timer])
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: Self.acceptedAt)
        #expect(Array(session.suffix(2)) == [.reportTimeout(.header), .close])
        #expect(wait.deadlinePassed(now: Self.acceptedAt + 2_500_000) == .close(timedOut: .header))
    }

    @Test func theSessionMadeOnTheFirstBytesKeepsTheDeadlineFromTheAccept() {
        var script = SessionScript { $0.proxy.headerTimeoutMs = 2_500 }
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: SessionScript.startMicros)
        script.now = SessionScript.startMicros + 1_000_000
        script.machine.started(after: wait, now: script.now)
        #expect(Array(script.machine.actions) == [.armTimer(millis: 1_501)])
        script.machine.dropActions(from: 0)
        let actions = script.all([.buffers(BufferLevels(clientInput: 12)), .wait(millis: 1_500), .timer])
        #expect(actions.contains(.reportTimeout(.header)))
        #expect(actions.sentText.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    }

    @Test func firstBytesArrivingAfterTheDeadlineFindItPassedAtOnce() {
        var script = SessionScript()
        let wait = FirstBytesWait(rules: Self.rules(), acceptedAt: SessionScript.startMicros)
        script.now = SessionScript.startMicros + 3_000_000
        script.machine.started(after: wait, now: script.now)
        #expect(Array(script.machine.actions) == [.armTimer(millis: 0)])
    }
}
