import Testing
@testable import IPDirectCore

@Suite struct SessionDeadlineTests {
    @Test func anUnarmedDeadlineNeverExpires() {
        var deadline = SessionDeadline()
        #expect(deadline.check(now: 1 << 40) == .unarmed)
        _ = deadline.arm(.header, millis: 10, now: 0)
        _ = deadline.cancel()
        #expect(deadline.check(now: 1 << 40) == .unarmed)
    }

    @Test func activityMovesTheDeadline() {
        var deadline = SessionDeadline()
        let armed = deadline.arm(.clientIdle, millis: 1000, now: 0)
        #expect(armed == .armTimer(millis: 1000))
        deadline.noteActivity(now: 600_000)
        #expect(deadline.check(now: 1_000_000) == .pending(millis: 601))
        #expect(deadline.check(now: 1_600_000) == .expired(.clientIdle))
    }

    @Test func aRestartGivesTheWholeWindowAgain() {
        var deadline = SessionDeadline()
        _ = deadline.arm(.tunnelIdle, millis: 5000, now: 0)
        let restarted = deadline.restart(now: 5_000_000)
        #expect(restarted == .armTimer(millis: 5000))
        #expect(deadline.check(now: 9_999_999) == .pending(millis: 1))
        #expect(deadline.reason == .tunnelIdle)
    }
}
