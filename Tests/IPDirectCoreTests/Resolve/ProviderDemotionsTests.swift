import Testing
@testable import IPDirectCore

@Suite struct ProviderDemotionsTests {
    /// Provider indices, as `[[resolver.httpdns]]` numbers them.
    let first = 0, second = 1, third = 2
    let general = HTTPDNSProviderSelection(domains: [[], [], []])

    func order(_ demotions: ProviderDemotions, now: CacheInstant) -> [Int] {
        general.order(for: "a.test", demoted: demotions.demoted(now: now))
    }

    @Test func aFailedProviderIsAskedLastUntilItsDemotionEnds() {
        var demotions = ProviderDemotions()
        #expect(demotions.failed(first, now: 0) == ProviderDemotions.initialMillis)
        #expect(order(demotions, now: 1) == [second, third, first])
        #expect(order(demotions, now: ProviderDemotions.initialMillis) == [first, second, third])
    }

    @Test func demotionsDoubleOnFailuresInARowUpToTheLimit() {
        var demotions = ProviderDemotions()
        var now: CacheInstant = 0
        var expected = ProviderDemotions.initialMillis
        for _ in 0..<10 {
            #expect(demotions.failed(first, now: now) == expected)
            #expect(demotions.isDemoted(first, now: now + expected - 1))
            #expect(!demotions.isDemoted(first, now: now + expected))
            now += expected
            expected = min(expected * 2, ProviderDemotions.maximumMillis)
        }
        #expect(expected == ProviderDemotions.maximumMillis)
    }

    @Test func anAnswerRestoresTheConfiguredOrderAndTheNextFailureStartsAgainFromTheShortestDemotion() {
        var demotions = ProviderDemotions()
        demotions.failed(first, now: 0)
        demotions.failed(first, now: 20_000)
        demotions.failed(second, now: 20_000)
        #expect(order(demotions, now: 20_001) == [third, first, second])
        let restored = demotions.answered(first)
        #expect(restored)
        #expect(order(demotions, now: 20_001) == [first, third, second])
        #expect(demotions.failed(first, now: 30_000) == ProviderDemotions.initialMillis)
    }

    @Test func anAnswerFromAProviderThatWasNotDemotedRestoresNothing() {
        var demotions = ProviderDemotions()
        let neverDemoted = demotions.answered(first)
        demotions.failed(first, now: 0)
        let demoted = demotions.answered(first)
        let alreadyRestored = demotions.answered(first)
        #expect(!neverDemoted && demoted && !alreadyRestored)
    }
}
