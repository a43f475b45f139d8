import Testing
@testable import IPDirectCore

@Suite struct KeepWarmScheduleTests {
    /// Milliseconds per second, for advancing test time in readable units.
    let second: Int64 = 1_000
    /// An arbitrary non-zero start, so nothing depends on the clock starting at 0.
    let start: CacheInstant = 5_000_000

    @Test func aPreresolvedNameIsFetchedAgainAtSeventyFivePercentOfItsTTLBeforeItExpires() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        let next = schedule.answered("warm.test", secondsLeft: [.v4: 100, .v6: 100], now: start)
        #expect(next == start + 75 * second)
        #expect(schedule.nextDue == start + 75 * second)
        #expect(schedule.due(at: start + 75 * second - 1).isEmpty)
        #expect(schedule.due(at: start + 75 * second) == ["warm.test"])
        #expect(start + 75 * second < start + 100 * second)
    }

    @Test func theFetchIsHandedOutOnceAndPlannedAgainOnlyByTheNextAnswer() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        schedule.answered("warm.test", secondsLeft: [.v4: 100], now: start)
        #expect(schedule.due(at: start + 80 * second) == ["warm.test"])
        // The fetch is running (or failed): nothing more is planned, however much time passes.
        #expect(schedule.due(at: start + 500 * second).isEmpty)
        #expect(schedule.nextDue == nil)
        schedule.answered("warm.test", secondsLeft: [.v4: 100], now: start + 81 * second)
        #expect(schedule.nextFetch(of: "warm.test") == start + 156 * second)
    }

    @Test func aNameThatIsNotPreresolvedIsNeverFetchedInTheBackground() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        #expect(schedule.answered("used-once.test", secondsLeft: [.v4: 100], now: start) == nil)
        #expect(schedule.nextDue == nil)
        #expect(schedule.due(at: start + 1_000 * second).isEmpty)
    }

    @Test func theFamilyThatRunsOutFirstDecides() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        schedule.answered("warm.test", secondsLeft: [.v4: 300, .v6: 40], now: start)
        #expect(schedule.nextFetch(of: "warm.test") == start + 30 * second)
    }

    @Test(arguments: [(Int64(0), Int64(1_000)), (1, 1_000), (2, 1_500), (4, 3_000)])
    func aShortTTLIsNeverFetchedMoreOftenThanOnceASecond(secondsLeft: Int64, delayMillis: Int64) {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        #expect(schedule.answered("warm.test", secondsLeft: [.v4: secondsLeft], now: start) == start + delayMillis)
    }

    @Test func nothingCachedForEitherFamilyIsFetchedAfterTheMinimumDelay() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        #expect(schedule.answered("warm.test", secondsLeft: [:], now: start) == start + KeepWarmSchedule.minimumDelayMillis)
    }

    @Test func theEarliestOfSeveralNamesIsDueFirstAndNamesDueTogetherComeSorted() {
        var schedule = KeepWarmSchedule(names: ["a.test", "b.test", "c.test"])
        schedule.answered("c.test", secondsLeft: [.v4: 40], now: start)
        schedule.answered("b.test", secondsLeft: [.v4: 100], now: start)
        schedule.answered("a.test", secondsLeft: [.v4: 40], now: start)
        #expect(schedule.nextDue == start + 30 * second)
        #expect(schedule.due(at: start + 30 * second) == ["a.test", "c.test"])
        #expect(schedule.nextDue == start + 75 * second)
        #expect(schedule.due(at: start + 75 * second) == ["b.test"])
    }

    @Test func aNewAnswerReplacesTheEarlierPlan() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        schedule.answered("warm.test", secondsLeft: [.v4: 100], now: start)
        schedule.answered("warm.test", secondsLeft: [.v4: 40], now: start + 10 * second)
        #expect(schedule.nextFetch(of: "warm.test") == start + 40 * second)
        #expect(schedule.due(at: start + 75 * second) == ["warm.test"])
        #expect(schedule.due(at: start + 75 * second).isEmpty)
    }

    @Test func removingEveryPlanStopsTheFetches() {
        var schedule = KeepWarmSchedule(names: ["warm.test"])
        schedule.answered("warm.test", secondsLeft: [.v4: 100], now: start)
        schedule.removeAll()
        #expect(schedule.nextDue == nil)
        #expect(schedule.due(at: start + 100 * second).isEmpty)
    }
}
