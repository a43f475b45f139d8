import Testing
@testable import IPDirectCore

/// The rate limit of ranking probes, with time passed in.
@Suite struct ProbeBudgetTests {
    @Test func aBurstIsAllowedThenTheRateRefillsIt() {
        var budget = ProbeBudget(perSecond: 10, burst: 20)
        #expect(budget.take(20, now: 0))
        #expect(!budget.take(1, now: 0))
        #expect(!budget.take(2, now: 150_000))
        #expect(budget.take(1, now: 150_000))
        #expect(budget.take(10, now: 1_150_000))
    }

    @Test func anIdleBudgetNeverHoldsMoreThanTheBurst() {
        var budget = ProbeBudget(perSecond: 10, burst: 5)
        #expect(budget.take(1, now: 0))
        #expect(!budget.take(6, now: 3_600_000_000))
        #expect(budget.take(5, now: 3_600_000_000))
    }

    @Test func aRequestLargerThanWhatIsLeftTakesNothing() {
        var budget = ProbeBudget(perSecond: 1, burst: 4)
        #expect(!budget.take(5, now: 0))
        #expect(budget.take(4, now: 0))
    }
}
