import Testing
@testable import IPDirectCore

/// The rate limit of ranking probes, with time passed in.
@Suite struct ProbeBudgetTests {
    func take(_ budget: inout ProbeBudget, _ count: Int, now: Int64) -> Bool {
        budget.take(count, now: now)
    }

    @Test func aBurstIsAllowedThenTheRateRefillsIt() {
        var budget = ProbeBudget(perSecond: 10, burst: 20)
        #expect(take(&budget, 20, now: 0) == true)
        #expect(take(&budget, 1, now: 0) == false)
        #expect(take(&budget, 2, now: 150_000) == false)
        #expect(take(&budget, 1, now: 150_000) == true)
        #expect(take(&budget, 10, now: 1_150_000) == true)
    }

    @Test func anIdleBudgetNeverHoldsMoreThanTheBurst() {
        var budget = ProbeBudget(perSecond: 10, burst: 5)
        #expect(take(&budget, 1, now: 0) == true)
        #expect(take(&budget, 6, now: 3_600_000_000) == false)
        #expect(take(&budget, 5, now: 3_600_000_000) == true)
    }

    @Test func aRequestLargerThanWhatIsLeftTakesNothing() {
        var budget = ProbeBudget(perSecond: 1, burst: 4)
        #expect(take(&budget, 5, now: 0) == false)
        #expect(take(&budget, 4, now: 0) == true)
    }
}
