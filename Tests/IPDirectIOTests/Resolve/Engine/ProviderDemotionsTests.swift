import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct ProviderDemotionsTests {
    final class NamedProvider: HTTPDNSSource {
        let name: String
        init(_ name: String) { self.name = name }
        func resolve(_ name: String, completion: @escaping (Result<NameAnswer, HTTPDNSQueryFailure>) -> Void) {}
        func close() {}
    }

    let first = NamedProvider("first")
    let second = NamedProvider("second")
    let third = NamedProvider("third")

    func names(_ providers: [HTTPDNSSource]) -> [String] { providers.map(\.name) }

    @Test func aFailedProviderIsAskedLastUntilItsDemotionEnds() {
        var demotions = ProviderDemotions()
        demotions.failed(first, reason: "timed out", now: 0)
        #expect(names(demotions.ordered([first, second, third], now: 1)) == ["second", "third", "first"])
        #expect(names(demotions.ordered([first, second, third], now: ProviderDemotions.initialMillis))
                == ["first", "second", "third"])
    }

    @Test func demotionsDoubleOnFailuresInARowUpToTheLimit() {
        var demotions = ProviderDemotions()
        var now: CacheInstant = 0
        var expected = ProviderDemotions.initialMillis
        for _ in 0..<10 {
            demotions.failed(first, reason: "refused", now: now)
            #expect(names(demotions.ordered([first, second], now: now + expected - 1)) == ["second", "first"])
            #expect(names(demotions.ordered([first, second], now: now + expected)) == ["first", "second"])
            now += expected
            expected = min(expected * 2, ProviderDemotions.maximumMillis)
        }
        #expect(expected == ProviderDemotions.maximumMillis)
    }

    @Test func anAnswerRestoresTheConfiguredOrder() {
        var demotions = ProviderDemotions()
        demotions.failed(first, reason: "garbage", now: 0)
        demotions.failed(second, reason: "garbage", now: 0)
        #expect(names(demotions.ordered([first, second, third], now: 1)) == ["third", "first", "second"])
        demotions.answered(first)
        #expect(names(demotions.ordered([first, second, third], now: 1)) == ["first", "third", "second"])
    }
}
