import Testing
@testable import IPDirectCore

@Suite struct LeftoverReadTimeoutTests {
    static let pooledAt: Int64 = 5_000_000

    @Test func aConnectionReusedMomentsLaterKeepsTheTimeoutOfTheSameLength() {
        let leftover = LeftoverReadTimeout(millis: 60_000, pooledAtMicros: Self.pooledAt)
        #expect(leftover.serves(asResponseTimeout: 60_000, now: Self.pooledAt))
        #expect(leftover.serves(asResponseTimeout: 60_000, now: Self.pooledAt + 300_000))
    }

    @Test func aConnectionIdleLongerThanTheToleranceHasItsTimeoutSetAgain() {
        let leftover = LeftoverReadTimeout(millis: 60_000, pooledAtMicros: Self.pooledAt)
        #expect(!leftover.serves(asResponseTimeout: 60_000, now: Self.pooledAt + 300_001))
        #expect(!leftover.serves(asResponseTimeout: 60_000, now: Self.pooledAt + 30_000_000))
    }

    @Test func aTimeoutOfAnotherLengthIsSetAgain() {
        let leftover = LeftoverReadTimeout(millis: 60_000, pooledAtMicros: Self.pooledAt)
        #expect(!leftover.serves(asResponseTimeout: 30_000, now: Self.pooledAt))
        #expect(!leftover.serves(asResponseTimeout: 90_000, now: Self.pooledAt))
    }

    @Test func aShortTimeoutToleratesOnlyASixtyFourthOfItself() {
        #expect(LeftoverReadTimeout.toleranceMicros(millis: 1_000) == 15_625)
        #expect(LeftoverReadTimeout.toleranceMicros(millis: 60_000) == 300_000)
        let leftover = LeftoverReadTimeout(millis: 1_000, pooledAtMicros: Self.pooledAt)
        #expect(leftover.serves(asResponseTimeout: 1_000, now: Self.pooledAt + 15_625))
        #expect(!leftover.serves(asResponseTimeout: 1_000, now: Self.pooledAt + 15_626))
    }
}
