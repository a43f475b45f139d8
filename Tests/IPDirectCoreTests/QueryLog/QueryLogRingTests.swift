import Testing
@testable import IPDirectCore

/// The query log each worker keeps: bounded, newest first, merged across workers by time.
@Suite struct QueryLogRingTests {
    func entry(_ name: String, at micros: Int64) -> QueryLogEntry {
        QueryLogEntry(origin: .dns, monotonicMicros: micros, unixMillis: micros / 1000, client: nil, name: name, type: "A",
                      source: "google", outcome: "NOERROR", addresses: [], elapsedMicros: 1)
    }

    @Test func keepsTheNewestEntriesNewestFirstOnceFull() {
        var ring = QueryLogRing(capacity: 3)
        for (index, name) in ["a", "b", "c", "d", "e"].enumerated() {
            ring.append(entry(name, at: Int64(index)))
        }
        #expect(ring.count == 3)
        #expect(ring.newestFirst.map(\.name) == ["e", "d", "c"])
    }

    @Test func listsAPartlyFilledRingNewestFirst() {
        var ring = QueryLogRing(capacity: 10)
        ring.append(entry("a", at: 1))
        ring.append(entry("b", at: 2))
        #expect(ring.newestFirst.map(\.name) == ["b", "a"])
    }

    @Test func capacityZeroKeepsNothing() {
        var ring = QueryLogRing(capacity: 0)
        ring.append(entry("a", at: 1))
        #expect(ring.newestFirst.isEmpty)
    }

    @Test func mergesWorkersByTimeAndKeepsTheNewestUpToTheLimit() {
        let first = [entry("w1-late", at: 50), entry("w1-early", at: 10)]
        let second = [entry("w2-mid", at: 30), entry("w2-earliest", at: 5)]
        #expect(QueryLogRing.merged([first, second], limit: 3).map(\.name) == ["w1-late", "w2-mid", "w1-early"])
        #expect(QueryLogRing.merged([first, second], limit: 0).isEmpty)
    }

    @Test func proxyLookupsAreLoggedInDNSTerms() {
        let resolution = Resolution(addresses: [IPAddress("192.0.2.1")!], source: .httpdns("google"), cache: .stale(ageMillis: 9))
        let served = QueryLogEntry.proxyLookup(.success(resolution), name: "WWW.Example.com", client: nil,
                                               monotonicMicros: 1, unixMillis: 1, elapsedMicros: 2)
        #expect(served.name == "www.example.com")
        #expect(served.type == "A+AAAA")
        #expect(served.source == "stale:google")
        #expect(served.outcome == "NOERROR")
        #expect(served.addresses == [IPAddress("192.0.2.1")!])
        let missing = QueryLogEntry.proxyLookup(.failure(ResolveFailure(host: "nope.test", reason: .notFound)), name: "nope.test",
                                                client: nil, monotonicMicros: 1, unixMillis: 1, elapsedMicros: 2)
        #expect(missing.outcome == "NXDOMAIN")
        #expect(missing.source == "-")
        #expect(missing.detail == "no such name")
        let down = QueryLogEntry.proxyLookup(.failure(ResolveFailure(host: "a.test", reason: .timeout)), name: "a.test",
                                             client: nil, monotonicMicros: 1, unixMillis: 1, elapsedMicros: 2)
        #expect(down.outcome == "SERVFAIL")
    }
}
