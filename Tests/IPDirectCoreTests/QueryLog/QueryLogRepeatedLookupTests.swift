import Testing
@testable import IPDirectCore

/// A proxy lookup that repeats the newest one (same name, client address, source, cache use and answer) is
/// counted in it, so one busy client cannot push every other lookup out of the ring; anything that differs
/// is listed on its own.
@Suite struct QueryLogRepeatedLookupTests {
    static let cached = Result<Resolution, ResolveFailure>.success(
        Resolution(addresses: [IPAddress("192.0.2.1")!], source: .httpdns("google"), cache: .hit(ageMillis: 5)))

    func lookup(_ name: String = "a.test", _ result: Result<Resolution, ResolveFailure> = cached,
                client: String = "198.51.100.7:40000", at micros: Int64) -> QueryLogRecord.ProxyLookup {
        QueryLogRecord.ProxyLookup(result, name: name, client: SocketAddress(client)!, monotonicMicros: micros,
                                   unixMillis: 1_700_000_000_000 + micros / 1000, elapsedMicros: micros / 10)
    }

    @Test func repeatsAreCountedInOneEntryThatTakesTheNewestTimesAndClient() {
        var ring = QueryLogRing(capacity: 10)
        ring.appendProxyLookup(lookup(at: 1_000))
        ring.appendProxyLookup(lookup(client: "198.51.100.7:40001", at: 2_000))
        ring.appendProxyLookup(lookup(client: "198.51.100.7:40002", at: 3_000))
        let entries = ring.newestFirst
        #expect(entries.count == 1)
        #expect(entries[0].repeats == 2)
        #expect(entries[0].monotonicMicros == 3_000 && entries[0].elapsedMicros == 300)
        #expect(entries[0].client == SocketAddress("198.51.100.7:40002"))
        #expect(entries[0].source == "cache:google")
    }

    @Test func theCountStaysWithItsEntryAfterOthersFollow() {
        var ring = QueryLogRing(capacity: 10)
        for micros in stride(from: Int64(1_000), through: 5_000, by: 1_000) { ring.appendProxyLookup(lookup(at: micros)) }
        ring.appendProxyLookup(lookup("b.test", at: 6_000))
        ring.append(QueryLogEntry(origin: .dns, monotonicMicros: 7_000, unixMillis: 1, client: nil, name: "c.test",
                                  type: "A", source: "google", outcome: "NOERROR", addresses: [], elapsedMicros: 1))
        #expect(ring.newestFirst.map(\.name) == ["c.test", "b.test", "a.test"])
        #expect(ring.newestFirst.map(\.repeats) == [0, 0, 4])
        #expect(ring.newestFirst[2].monotonicMicros == 5_000)
    }

    @Test(arguments: [
        ("another name", "b.test", cached, "198.51.100.7:40000"),
        ("another client address", "a.test", cached, "198.51.100.8:40000"),
        ("another answer", "a.test", Result<Resolution, ResolveFailure>.success(
            Resolution(addresses: [IPAddress("192.0.2.2")!], source: .httpdns("google"), cache: .hit(ageMillis: 5))),
         "198.51.100.7:40000"),
        ("another source", "a.test", .success(Resolution(addresses: [IPAddress("192.0.2.1")!], source: .system)),
         "198.51.100.7:40000"),
        ("stale rather than fresh", "a.test", .success(Resolution(addresses: [IPAddress("192.0.2.1")!],
                                                                  source: .httpdns("google"), cache: .stale(ageMillis: 5))),
         "198.51.100.7:40000"),
        ("a failure", "a.test", .failure(ResolveFailure(host: "a.test", reason: .timeout)), "198.51.100.7:40000"),
    ])
    func aLookupThatDiffersInAnyWayIsListedOnItsOwn(_ difference: String, name: String,
                                                     result: Result<Resolution, ResolveFailure>, client: String) {
        var ring = QueryLogRing(capacity: 10)
        ring.appendProxyLookup(lookup(at: 1_000))
        ring.appendProxyLookup(lookup(name, result, client: client, at: 2_000))
        #expect(ring.newestFirst.count == 2, "\(difference)")
        #expect(ring.newestFirst.map(\.repeats) == [0, 0])
    }

    @Test func aRepeatedFailureIsCountedAsWell() {
        var ring = QueryLogRing(capacity: 10)
        let failure = Result<Resolution, ResolveFailure>.failure(ResolveFailure(host: "a.test", reason: .notFound))
        ring.appendProxyLookup(lookup("a.test", failure, at: 1_000))
        ring.appendProxyLookup(lookup("a.test", failure, at: 2_000))
        #expect(ring.newestFirst.count == 1 && ring.newestFirst[0].repeats == 1)
        #expect(ring.newestFirst[0].outcome == "NXDOMAIN")
    }

    @Test func aRingThatKeepsNothingCountsNothing() {
        var ring = QueryLogRing(capacity: 0)
        ring.appendProxyLookup(lookup(at: 1_000))
        ring.appendProxyLookup(lookup(at: 2_000))
        #expect(ring.newestFirst.isEmpty)
    }

    @Test func aFullRingFoldsIntoItsNewestSlot() {
        var ring = QueryLogRing(capacity: 2)
        ring.appendProxyLookup(lookup("a.test", at: 1_000))
        ring.appendProxyLookup(lookup("b.test", at: 2_000))
        ring.appendProxyLookup(lookup("c.test", at: 3_000))
        ring.appendProxyLookup(lookup("c.test", at: 4_000))
        ring.appendProxyLookup(lookup("d.test", at: 5_000))
        #expect(ring.newestFirst.map(\.name) == ["d.test", "c.test"])
        #expect(ring.newestFirst.map(\.repeats) == [0, 1])
    }
}
