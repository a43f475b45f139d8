import Testing
@testable import IPDirectCore

/// A proxy lookup is kept as its result and put into words when read: the words must be those the entry
/// made at once would have had.
@Suite struct QueryLogRecordTests {
    static let client = SocketAddress(ip: IPAddress("198.51.100.7")!, port: 40000)

    static let results: [Result<Resolution, ResolveFailure>] = [
        .success(Resolution(addresses: [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!], source: .httpdns("google"),
                            cache: .hit(ageMillis: 5))),
        .success(Resolution(addresses: [IPAddress("192.0.2.2")!], source: .system, cache: .stale(ageMillis: 9))),
        .success(Resolution(addresses: [IPAddress("192.0.2.3")!], source: .hosts)),
        .failure(ResolveFailure(host: "nope.test", reason: .notFound)),
        .failure(ResolveFailure(host: "a.test", reason: .timeout)),
        .failure(ResolveFailure(host: "b.test", reason: .noAddresses(source: "google"))),
        .failure(ResolveFailure(host: "c.test", reason: .failed("every source failed"))),
    ]

    @Test(arguments: results)
    func aProxyLookupReadsAsTheEntryMadeAtOnce(_ result: Result<Resolution, ResolveFailure>) {
        let record = QueryLogRecord.proxyLookup(.init(result, name: "WWW.Example.com.", client: Self.client,
                                                      monotonicMicros: 7, unixMillis: 1_700_000_000_000, elapsedMicros: 3))
        let entry = QueryLogEntry.proxyLookup(result, name: "WWW.Example.com.", client: Self.client,
                                              monotonicMicros: 7, unixMillis: 1_700_000_000_000, elapsedMicros: 3)
        #expect(record.entry == entry)
    }

    @Test func theRingWordsRecordsWhenRead() {
        var ring = QueryLogRing(capacity: 2)
        let written = QueryLogEntry(origin: .dns, monotonicMicros: 1, unixMillis: 1, client: nil, name: "a.test", type: "A",
                                    source: "google", outcome: "NOERROR", addresses: [], elapsedMicros: 1)
        ring.append(written)
        ring.append(.proxyLookup(.init(Self.results[0], name: "b.test", client: nil, monotonicMicros: 2, unixMillis: 2,
                                       elapsedMicros: 1)))
        #expect(ring.newestFirst.map(\.name) == ["b.test", "a.test"])
        #expect(ring.newestFirst.map(\.source) == ["cache:google", "google"])
        #expect(ring.newestFirst.last == written)
    }
}
