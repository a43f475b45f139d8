import Testing
@testable import IPDirectCore

/// The admin listener's head deadline: absolute from the accept or the last response, whatever arrives.
@Suite struct AdminHeadDeadlineTests {
    static let limitMillis = 10_000
    static let second: Int64 = 1_000_000

    @Test func armsTheTimerForTheWholeLimitOnAccept() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        #expect(deadline.accepted(now: 0) == Self.limitMillis)
        #expect(deadline.check(now: 4 * Self.second, partialHead: true) == .pending(millis: 6_001))
    }

    /// A client trickling a byte at a time gets no more time than one sending nothing.
    @Test func bytesArrivingDoNotMoveTheDeadline() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        _ = deadline.accepted(now: 0)
        for secondsIn in stride(from: Int64(1), through: 9, by: 1) {
            guard case .pending = deadline.check(now: secondsIn * Self.second, partialHead: true) else {
                Issue.record("expired after \(secondsIn) s")
                return
            }
        }
        guard case .expired(.headTimeout, let answer?) = deadline.check(now: 10 * Self.second, partialHead: true) else {
            Issue.record("a trickled head outlived the deadline")
            return
        }
        #expect(answer.status == 408)
    }

    @Test func aFreshConnectionThatNeverAsksTimesOutWithoutAnAnswer() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        _ = deadline.accepted(now: 0)
        #expect(deadline.check(now: 10 * Self.second, partialHead: false) == .expired(.headTimeout, answer: nil))
    }

    @Test func noDeadlineRunsWhileARequestIsAnswered() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        _ = deadline.accepted(now: 0)
        deadline.headReceived()
        #expect(deadline.check(now: 60 * Self.second, partialHead: true) == .unarmed)
    }

    @Test func theClockStartsAgainWhenTheResponseIsWritten() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        _ = deadline.accepted(now: 0)
        deadline.headReceived()
        #expect(deadline.responseWritten(now: 8 * Self.second) == Self.limitMillis)
        #expect(deadline.check(now: 17 * Self.second, partialHead: true) == .pending(millis: 1_001))
        guard case .expired(.headTimeout, _) = deadline.check(now: 18 * Self.second, partialHead: true) else {
            Issue.record("the second head got more than the limit")
            return
        }
    }

    /// A scraper keeping its connection between scrapes is routine, not a slow client.
    @Test func silenceAfterAResponseIsIdleNotATimeout() {
        var deadline = AdminHeadDeadline(limitMillis: Self.limitMillis)
        _ = deadline.accepted(now: 0)
        deadline.headReceived()
        _ = deadline.responseWritten(now: Self.second)
        #expect(deadline.check(now: 11 * Self.second, partialHead: false) == .expired(.idle, answer: nil))
        #expect(AdminClosure.idle.isWorthAWarning == false)
    }
}
