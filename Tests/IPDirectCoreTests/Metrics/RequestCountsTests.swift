import Testing
@testable import IPDirectCore

/// `ipdirect_requests_total` counted in a fixed table by method and status, with a dictionary only for
/// what the table has no cell for.
@Suite struct RequestCountsTests {
    @Test func everyMethodIsCountedUnderItsOwnText() {
        var counts = RequestCounts()
        for method in RequestCounts.methods { counts.count(method, status: 200) }
        let expected = Dictionary(uniqueKeysWithValues: RequestCounts.methods.map {
            (RequestCounts.Key(method: $0.description, status: 200), UInt64(1))
        })
        #expect(counts.byKey == expected)
    }

    @Test func statusesOutsideTheTableAndNoStatusAreCountedToo() {
        var counts = RequestCounts()
        counts.count(.get, status: 0)
        counts.count(.get, status: 100)
        counts.count(.get, status: 599)
        counts.count(.get, status: 600)
        counts.count(.post, status: 99)
        counts.count(.post, status: 99)
        #expect(counts.byKey == [
            .init(method: "GET", status: 0): 1, .init(method: "GET", status: 100): 1, .init(method: "GET", status: 599): 1,
            .init(method: "GET", status: 600): 1, .init(method: "POST", status: 99): 2,
        ])
    }

    @Test func countingByTextMatchesCountingByMethod() {
        var byText = RequestCounts()
        byText.count(method: "HEAD", status: 304)
        byText.count(method: "BREW", status: 418)
        var byMethod = RequestCounts()
        byMethod.count(.head, status: 304)
        #expect(byText.byKey[.init(method: "HEAD", status: 304)] == byMethod.byKey[.init(method: "HEAD", status: 304)])
        #expect(byText.byKey[.init(method: "BREW", status: 418)] == 1)
    }

    @Test func workersAddUpCellByCell() {
        var first = RequestCounts()
        first.count(.get, status: 200)
        first.count(.get, status: 700)
        var second = RequestCounts()
        second.count(.get, status: 200)
        second.count(.connect, status: 403)
        second.count(.get, status: 700)
        first.add(second)
        #expect(first.byKey == [
            .init(method: "GET", status: 200): 2, .init(method: "CONNECT", status: 403): 1, .init(method: "GET", status: 700): 2,
        ])
    }
}
