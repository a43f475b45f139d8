import Testing
@testable import IPDirectCore

@Suite struct PeakEWMATests {
    @Test func jumpsToAWorseSampleAtOnce() {
        var ewma = PeakEWMA(firstSample: 1_000, now: 0)
        ewma.observe(80_000, now: 1)
        #expect(ewma.cost == 80_000)
    }

    @Test func decaysTowardBetterSamplesOverTheDecayTime() {
        var ewma = PeakEWMA(firstSample: 80_000, now: 0)
        ewma.observe(1_000, now: 10_000_000)
        // One decay time later the old peak keeps e^-1 (about 37 %) of its weight.
        #expect(abs(ewma.cost - (80_000 * 0.36788 + 1_000 * 0.63212)) < 50)
        for step in 2...8 { ewma.observe(1_000, now: Int64(step) * 10_000_000) }
        #expect(ewma.cost < 1_100)
    }

    @Test func aSampleRightAfterAnotherBarelyMovesTheEstimateDown() {
        var ewma = PeakEWMA(firstSample: 50_000, now: 0)
        ewma.observe(0, now: 1_000)
        #expect(ewma.cost > 49_000)
    }

    @Test(arguments: [(0.0, 1.0), (1.0, 0.367879), (2.5, 0.082085), (0.1, 0.904837), (45.0, 0.0)])
    func decayWeightFollowsTheExponential(x: Double, expected: Double) {
        let weight = Decay.weight(elapsed: Int64(x * 1_000_000), over: 1_000_000)
        #expect(abs(weight - expected) < 0.0001)
    }
}
