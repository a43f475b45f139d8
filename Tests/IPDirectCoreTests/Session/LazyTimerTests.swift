import Testing
@testable import IPDirectCore

@Suite struct LazyTimerTests {
    @Test func theFirstArmSetsTheEvent() {
        var timer = LazyTimer()
        #expect(timer.arm(millis: 500, now: 1_000_000) == 500)
        #expect(timer.setForMicros == 1_500_000)
        #expect(timer.dueMicros == 1_500_000)
    }

    @Test func armingForLaterLeavesTheEventAndItsEarlyFiringSetsItForTheRest() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 500, now: 0)
        #expect(timer.arm(millis: 500, now: 200_000) == nil)
        #expect(timer.fired(now: 500_000) == .early(millis: 200))
        #expect(timer.setForMicros == 700_000)
        #expect(timer.fired(now: 700_000) == .due)
        #expect(timer.dueMicros == nil)
    }

    @Test func armingForSoonerSetsTheEventAgain() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 60_000, now: 0)
        #expect(timer.arm(millis: 10, now: 1_000) == 10)
        #expect(timer.setForMicros == 11_000)
        #expect(timer.fired(now: 11_000) == .due)
    }

    @Test func aCancelledTimerIgnoresItsFiringAndIsSetAgainOnlyWhenNeeded() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 100, now: 0)
        timer.cancel()
        #expect(timer.arm(millis: 300, now: 50_000) == nil)
        timer.cancel()
        #expect(timer.fired(now: 100_000) == .idle)
        #expect(timer.setForMicros == nil)
        #expect(timer.arm(millis: 300, now: 150_000) == 300)
    }

    @Test func aFiringWithinAMillisecondOfTheDueTimeIsDue() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 5, now: 0)
        #expect(timer.fired(now: 4_200) == .due)
    }

    @Test func anEarlyFiringRoundsTheRestUp() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 10, now: 0)
        _ = timer.arm(millis: 10, now: 2_500)
        #expect(timer.fired(now: 10_000) == .early(millis: 3))
    }

    @Test func aRemovedEventIsSetAgainByTheNextArm() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 100, now: 0)
        timer.eventRemoved()
        #expect(timer.dueMicros == nil)
        #expect(timer.arm(millis: 200, now: 10_000) == 200)
    }

    @Test func aTimerDueNowIsSetAtOnceEvenUnderALaterEvent() {
        var timer = LazyTimer()
        _ = timer.arm(millis: 1000, now: 0)
        #expect(timer.arm(millis: 0, now: 10_000) == 0)
        #expect(timer.fired(now: 10_100) == .due)
    }
}
