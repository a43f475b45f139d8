import Testing
@testable import IPDirectCore

@Suite struct ResolverCacheTests {
    /// Milliseconds per second, for advancing test time in readable units.
    let second: Int64 = 1_000
    /// An arbitrary non-zero start, so nothing depends on the clock starting at 0.
    let start: CacheInstant = 5_000_000
    let addressA = IPAddress("203.0.113.7")!
    let addressB = IPAddress("203.0.113.8")!
    let addressV6 = IPAddress("2001:db8::7")!

    func cache(minTTL: UInt32 = 10, maxTTL: UInt32 = 1_000, negativeTTL: UInt32 = 20,
               serveStale: UInt32 = 60, maxEntries: Int = 100) -> ResolverCache {
        ResolverCache(settings: ResolverCacheSettings(minTTL: minTTL, maxTTL: maxTTL, negativeTTL: negativeTTL,
                                                      serveStale: serveStale, maxEntries: maxEntries))
    }

    @Test(arguments: [(UInt32(0), UInt32(10)), (5, 10), (10, 10), (300, 300), (1_000, 1_000), (86_400, 1_000)])
    func clampsTheAnswerTTLBetweenMinimumAndMaximum(answerTTL: UInt32, cachedTTL: UInt32) {
        var cache = cache()
        cache.insert([addressA], ttl: answerTTL, for: "a.test", family: .v4, source: "p", now: start)
        #expect(cache.lookup("a.test", family: .v4, now: start).answer?.ttl == cachedTTL)
    }

    @Test func raisesAMaximumTTLBelowTheMinimum() {
        let settings = ResolverCacheSettings(minTTL: 60, maxTTL: 10)
        #expect(settings.maxTTL == 60)
        #expect(settings.clampedTTL(1) == 60)
    }

    @Test func answersFreshWithTheAgeUntilTheRefreshPoint() {
        var cache = cache()
        cache.insert([addressA, addressB], ttl: 100, for: "a.test", family: .v4, source: "dns.google", now: start)
        let lookup = cache.lookup("a.test", family: .v4, now: start + 74 * second)
        guard case .fresh(let answer, let age) = lookup else {
            Issue.record("expected fresh, got \(lookup)")
            return
        }
        #expect(answer.addresses == [addressA, addressB])
        #expect(answer.source == "dns.google")
        #expect(age == 74 * second)
        #expect(cache.counters.hits == 1)
    }

    @Test func asksForOneBackgroundRefreshAtSeventyFivePercentOfTheTTL() {
        var cache = cache()
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        let justBefore = cache.lookup("a.test", family: .v4, now: start + 75 * second - 1)
        guard case .fresh = justBefore else {
            Issue.record("expected fresh just before 75%, got \(justBefore)")
            return
        }
        let atPoint = cache.lookup("a.test", family: .v4, now: start + 75 * second)
        guard case .refreshDue(let answer, let age) = atPoint else {
            Issue.record("expected refresh-due at 75%, got \(atPoint)")
            return
        }
        #expect(answer.addresses == [addressA])
        #expect(age == 75 * second)
        // Later lookups are served without asking for a second refresh while the first may still run...
        let later = cache.lookup("a.test", family: .v4, now: start + 75 * second + ResolverCache.refreshRetryMillis - 1)
        guard case .fresh = later else {
            Issue.record("expected fresh after the refresh was asked for, got \(later)")
            return
        }
        #expect(cache.counters.refreshes == 1)
        #expect(cache.counters.hits == 3)
        // ...and once it has had its time without replacing the answer (it failed), it is asked for again.
        guard case .refreshDue = cache.lookup("a.test", family: .v4, now: start + 75 * second + ResolverCache.refreshRetryMillis) else {
            Issue.record("a failed refresh must be retried")
            return
        }
        #expect(cache.counters.refreshes == 2)
    }

    @Test func aReplacingAnswerRestartsTheTTLAndTheRefreshPoint() {
        var cache = cache()
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        _ = cache.lookup("a.test", family: .v4, now: start + 80 * second)
        cache.insert([addressB], ttl: 100, for: "a.test", family: .v4, source: "q", now: start + 81 * second)
        #expect(cache.lookup("a.test", family: .v4, now: start + 150 * second) == .fresh(
            CachedAnswer(addresses: [addressB], source: "q", fetchedAt: start + 81 * second, ttl: 100),
            age: 69 * second))
        guard case .refreshDue = cache.lookup("a.test", family: .v4, now: start + 157 * second) else {
            Issue.record("the replaced answer did not reach its own refresh point")
            return
        }
        #expect(cache.count == 1)
    }

    @Test func servesAnExpiredAnswerStaleWithinTheServeStaleWindow() {
        var cache = cache(serveStale: 60)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        let expired = cache.lookup("a.test", family: .v4, now: start + 100 * second)
        guard case .stale(let answer, let age, refresh: true) = expired else {
            Issue.record("expected stale at expiry, got \(expired)")
            return
        }
        #expect(answer.addresses == [addressA])
        #expect(age == 100 * second)
        // While that refresh may run, further stale lookups do not ask for another one.
        guard case .stale(_, _, refresh: false) = cache.lookup("a.test", family: .v4, now: start + 100 * second + 1) else {
            Issue.record("expected stale without a second refresh")
            return
        }
        guard case .stale(_, _, refresh: true) = cache.lookup("a.test", family: .v4, now: start + 160 * second - 1) else {
            Issue.record("expected stale until the window closes, with the failed refresh retried")
            return
        }
        #expect(cache.counters.staleServes == 3)
        #expect(cache.lookup("a.test", family: .v4, now: start + 160 * second) == .miss)
        #expect(cache.count == 0)
        #expect(cache.counters.misses == 1)
    }

    @Test func neverServesStaleWhenServeStaleIsZero() {
        var cache = cache(serveStale: 0)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        guard case .refreshDue = cache.lookup("a.test", family: .v4, now: start + 100 * second - 1) else {
            Issue.record("expected refresh-due just before expiry")
            return
        }
        #expect(cache.lookup("a.test", family: .v4, now: start + 100 * second) == .miss)
        #expect(cache.counters.staleServes == 0)
    }

    @Test func cachesNegativeAnswersForTheNegativeTTLOnly() {
        var cache = cache(minTTL: 60, negativeTTL: 20, serveStale: 600)
        cache.insertNegative(for: "nx.test", family: .v4, source: "dns.google", now: start)
        let lookup = cache.lookup("nx.test", family: .v4, now: start + 20 * second - 1)
        guard case .fresh(let answer, _) = lookup else {
            Issue.record("expected a fresh negative answer, got \(lookup)")
            return
        }
        #expect(answer.isNegative)
        #expect(answer.ttl == 20)
        // Neither refreshed early nor served stale, and not raised to min_ttl.
        #expect(cache.lookup("nx.test", family: .v4, now: start + 20 * second) == .miss)
        #expect(cache.counters.refreshes == 0)
        #expect(cache.counters.staleServes == 0)
    }

    @Test func treatsAnEmptyAddressListAsANegativeAnswer() {
        var cache = cache(negativeTTL: 20)
        cache.insert([], ttl: 500, for: "nodata.test", family: .v6, source: "p", now: start)
        #expect(cache.lookup("nodata.test", family: .v6, now: start).isNegative == true)
        #expect(cache.lookup("nodata.test", family: .v6, now: start + 20 * second) == .miss)
    }

    @Test func evictsTheLeastRecentlyUsedEntryFirst() {
        var cache = cache(maxEntries: 3)
        for name in ["a.test", "b.test", "c.test"] {
            cache.insert([addressA], ttl: 100, for: name, family: .v4, source: "p", now: start)
        }
        _ = cache.lookup("a.test", family: .v4, now: start)  // b is now the least recently used
        cache.insert([addressA], ttl: 100, for: "d.test", family: .v4, source: "p", now: start)
        #expect(cache.count == 3)
        #expect(cache.counters.evictions == 1)
        #expect(cache.lookup("b.test", family: .v4, now: start) == .miss)
        cache.insert([addressA], ttl: 100, for: "e.test", family: .v4, source: "p", now: start)
        #expect(cache.lookup("c.test", family: .v4, now: start) == .miss)
        for survivor in ["a.test", "d.test", "e.test"] {
            #expect(cache.lookup(survivor, family: .v4, now: start) != .miss, "\(survivor) was evicted")
        }
        #expect(cache.counters.evictions == 2)
    }

    @Test func keepsTheTwoAddressFamiliesApart() {
        var cache = cache()
        cache.insert([addressA], ttl: 100, for: "dual.test", family: .v4, source: "p", now: start)
        #expect(cache.lookup("dual.test", family: .v6, now: start) == .miss)
        cache.insert([addressV6], ttl: 300, for: "dual.test", family: .v6, source: "q", now: start)
        #expect(cache.lookup("dual.test", family: .v4, now: start).addresses == [addressA])
        #expect(cache.lookup("dual.test", family: .v6, now: start).addresses == [addressV6])
        #expect(cache.count == 2)
        // The v4 answer expires on its own TTL while v6 stays fresh.
        guard case .stale = cache.lookup("dual.test", family: .v4, now: start + 100 * second),
              case .fresh = cache.lookup("dual.test", family: .v6, now: start + 100 * second) else {
            Issue.record("families shared a TTL")
            return
        }
    }

    @Test(arguments: ["WWW.Example.COM", "www.example.com.", "Www.EXAMPLE.com.", "www.example.com"])
    func normalisesCaseAndTheTrailingDot(spelling: String) {
        var cache = cache()
        cache.insert([addressA], ttl: 100, for: "www.example.com", family: .v4, source: "p", now: start)
        #expect(cache.lookup(spelling, family: .v4, now: start).addresses == [addressA])
        cache.insert([addressB], ttl: 100, for: spelling, family: .v4, source: "p", now: start)
        #expect(cache.count == 1)
        #expect(cache.snapshot(now: start).map(\.name) == ["www.example.com"])
    }

    @Test func foldsOnlyASCIILettersWhenNormalising() {
        #expect(ResolverCacheKey.normalised("ÄB.Test.") == "Äb.test")
        #expect(ResolverCacheKey.normalised(".") == "")
    }

    @Test func removesANameInBothFamiliesAndEverythingOnRemoveAll() {
        var cache = cache()
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        cache.insert([addressV6], ttl: 100, for: "a.test", family: .v6, source: "p", now: start)
        cache.insert([addressB], ttl: 100, for: "b.test", family: .v4, source: "p", now: start)
        cache.remove("A.TEST.")
        #expect(cache.count == 1)
        #expect(cache.lookup("a.test", family: .v6, now: start) == .miss)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.lookup("b.test", family: .v4, now: start) == .miss)
    }

    @Test func snapshotListsEveryEntryWithTheTTLLeftAndSource() {
        var cache = cache()
        cache.insert([addressV6], ttl: 300, for: "b.test", family: .v6, source: "cloudflare", now: start)
        cache.insert([addressA, addressB], ttl: 100, for: "b.test", family: .v4, source: "dns.google", now: start)
        cache.insertNegative(for: "a.test", family: .v4, source: "system", now: start)
        #expect(cache.snapshot(now: start + 5 * second).first == CacheSnapshotRow(
            name: "a.test", family: .v4, addresses: [], secondsLeft: 15, source: "system"))
        // The negative answer is gone by now and is left out; b.test v4 is stale.
        let rows = cache.snapshot(now: start + 150 * second + 1)
        #expect(rows == [
            CacheSnapshotRow(name: "b.test", family: .v4, addresses: [addressA, addressB], secondsLeft: -51,
                             source: "dns.google"),
            CacheSnapshotRow(name: "b.test", family: .v6, addresses: [addressV6], secondsLeft: 149,
                             source: "cloudflare"),
        ])
        #expect(rows[0].description == "b.test v4 203.0.113.7,203.0.113.8 ttl_left=-51 source=dns.google")
        #expect(cache.counters == ResolverCacheCounters(), "a snapshot is not a lookup")
    }

    @Test func countsMissesAndDescribesTheCounters() {
        var cache = cache()
        _ = cache.lookup("a.test", family: .v4, now: start)
        _ = cache.lookup("a.test", family: .v6, now: start)
        #expect(cache.counters.misses == 2)
        #expect(cache.counters.description == "hits=0 misses=2 stale_serves=0 refreshes=0 evictions=0")
    }

    @Test func answerChangesCountWhatAnAnswerSaysNotItsRefreshes() {
        var cache = cache(maxEntries: 2)
        var changes = cache.answerChanges
        func changed() -> Bool {
            defer { changes = cache.answerChanges }
            return cache.answerChanges != changes
        }
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        #expect(changed(), "a new answer")
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start + 80 * second)
        #expect(!changed(), "a refresh with the same answer")
        cache.insert([addressB, addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start + 90 * second)
        #expect(changed(), "other addresses")
        cache.insert([addressB, addressA], ttl: 100, for: "a.test", family: .v4, source: "q", now: start + 90 * second)
        #expect(changed(), "another source")
        cache.insertNegative(for: "a.test", family: .v4, source: "q", now: start + 90 * second)
        #expect(changed(), "no addresses")
        _ = cache.lookup("a.test", family: .v4, now: start + 95 * second)
        #expect(!changed(), "a lookup")
        cache.insert([addressA], ttl: 100, for: "b.test", family: .v4, source: "p", now: start)
        _ = changed()
        cache.insert([addressA], ttl: 100, for: "c.test", family: .v4, source: "p", now: start)
        #expect(changed(), "c.test is new; the least recently used entry it pushes out still answers until its TTL")
        cache.remove("c.test")
        #expect(changed())
        cache.removeAll()
        #expect(changed())
    }
}

extension CacheLookup {
    /// The addresses and negativity of the answer, for compact expectations.
    var addresses: [IPAddress]? { answer?.addresses }
    var isNegative: Bool? { answer?.isNegative }
}

@Suite struct ResolverCacheInspectTests {
    @Test func inspectingCountsNothingAndAsksForNoRefresh() {
        var cache = ResolverCache(settings: ResolverCacheSettings(minTTL: 1, maxTTL: 100, serveStale: 60))
        cache.insert([IPAddress("192.0.2.1")!], ttl: 100, for: "a.test", family: .v4, source: "p", now: 0)
        guard case .fresh = cache.inspect("a.test", family: .v4, now: 1_000) else { Issue.record("fresh"); return }
        guard case .refreshDue = cache.inspect("a.test", family: .v4, now: 80_000) else { Issue.record("due"); return }
        #expect(cache.inspect("b.test", family: .v4, now: 0) == .miss)
        #expect(cache.counters == ResolverCacheCounters())
        // The refresh is still there for the next real lookup to ask for.
        guard case .refreshDue = cache.lookup("a.test", family: .v4, now: 80_000) else { Issue.record("lookup"); return }
    }
}

@Suite struct ResolverCacheResettleTests {
    @Test func newSettingsKeepTheMostRecentEntriesThatFitAndTheCounters() {
        var cache = ResolverCache(settings: ResolverCacheSettings(maxEntries: 3))
        for (index, name) in ["a.test", "b.test", "c.test"].enumerated() {
            cache.insert([IPAddress("192.0.2.\(index + 1)")!], ttl: 300, for: name, family: .v4, source: "p", now: 0)
        }
        _ = cache.lookup("a.test", family: .v4, now: 1)
        cache.resettle(ResolverCacheSettings(minTTL: 60, maxEntries: 2))
        #expect(cache.settings.maxEntries == 2 && cache.settings.minTTL == 60)
        #expect(cache.count == 2)
        // a.test was used last, c.test inserted last; b.test was the least recently used.
        #expect(cache.peek("a.test", family: .v4, now: 2)?.addresses == [IPAddress("192.0.2.1")!])
        #expect(cache.peek("c.test", family: .v4, now: 2) != nil)
        #expect(cache.peek("b.test", family: .v4, now: 2) == nil)
        #expect(cache.counters.hits == 1)
        // The new limits apply to answers cached from now on.
        cache.insert([IPAddress("192.0.2.9")!], ttl: 1, for: "d.test", family: .v4, source: "p", now: 2)
        #expect(cache.peek("d.test", family: .v4, now: 2)?.ttl == 60)
    }
}

/// A failed refresh is retried at a fixed interval, measured from the last time one was asked for.
@Suite struct ResolverCacheRefreshRetryTests {
    let second: Int64 = 1_000
    let start: CacheInstant = 5_000_000
    let address = IPAddress("203.0.113.7")!

    func asksForRefresh(_ lookup: CacheLookup) -> Bool {
        switch lookup {
        case .refreshDue, .stale(_, _, refresh: true): return true
        case .fresh, .stale(_, _, refresh: false), .miss: return false
        }
    }

    @Test func aRefreshThatKeepsFailingIsAskedForAgainEveryRetryIntervalWithoutGrowing() {
        var cache = ResolverCache(settings: ResolverCacheSettings(minTTL: 1, maxTTL: 1_000, serveStale: 600))
        cache.insert([address], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        var asked = start + 75 * second
        #expect(asksForRefresh(cache.lookup("a.test", family: .v4, now: asked)))
        // Past expiry (100 s) and on into the stale window, the wait stays the same.
        for _ in 0..<6 {
            #expect(!asksForRefresh(cache.lookup("a.test", family: .v4, now: asked + ResolverCache.refreshRetryMillis - 1)))
            asked += ResolverCache.refreshRetryMillis
            #expect(asksForRefresh(cache.lookup("a.test", family: .v4, now: asked)))
        }
        #expect(cache.counters.refreshes == 7)
    }

    @Test func anAnswerThatReplacesTheEntryEndsTheRetryWait() {
        var cache = ResolverCache(settings: ResolverCacheSettings(minTTL: 1, maxTTL: 1_000, serveStale: 600))
        cache.insert([address], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        #expect(asksForRefresh(cache.lookup("a.test", family: .v4, now: start + 75 * second)))
        // The refresh succeeds with a short TTL: its own refresh point (7.5 s later) comes before the
        // retry interval after the last request would have ended, and is not held back by it.
        cache.insert([address], ttl: 10, for: "a.test", family: .v4, source: "p", now: start + 76 * second)
        #expect(!asksForRefresh(cache.lookup("a.test", family: .v4, now: start + 83_500 - 1)))
        #expect(start + 83_500 < start + 75 * second + ResolverCache.refreshRetryMillis)
        #expect(asksForRefresh(cache.lookup("a.test", family: .v4, now: start + 83_500)))
    }
}

/// What waiting lookups get when every source failed (RFC 8767 §4).
@Suite struct ResolverCacheStaleFallbackTests {
    let second: Int64 = 1_000
    let start: CacheInstant = 5_000_000
    let addressA = IPAddress("203.0.113.7")!
    let addressV6 = IPAddress("2001:db8::7")!

    func cache(serveStale: UInt32 = 60) -> ResolverCache {
        ResolverCache(settings: ResolverCacheSettings(minTTL: 1, maxTTL: 1_000, negativeTTL: 20, serveStale: serveStale))
    }

    @Test func servesAnExpiredAnswerInsideTheServeStaleWindowAndNotAfter() {
        var cache = cache(serveStale: 60)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "dns.google", now: start)
        cache.insert([addressV6], ttl: 100, for: "a.test", family: .v6, source: "dns.google", now: start + 10 * second)
        let stale = cache.staleFallback("a.test", servedTo: 3, now: start + 130 * second)
        #expect(stale == Resolution(addresses: [addressA, addressV6], source: .httpdns("dns.google"),
                                    cache: .stale(ageMillis: 130 * second), secondsLeft: [.v4: -30, .v6: -20]))
        #expect(cache.counters.staleServes == 3)
        // The v4 answer's window closed; the v6 one's is still open for ten seconds.
        #expect(cache.staleFallback("a.test", servedTo: 1, now: start + 160 * second)?.addresses == [addressV6])
        #expect(cache.staleFallback("a.test", servedTo: 1, now: start + 170 * second) == nil)
        #expect(cache.counters.staleServes == 4)
    }

    @Test func servesNothingPastExpiryWhenServeStaleIsZero() {
        var cache = cache(serveStale: 0)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        #expect(cache.staleFallback("a.test", servedTo: 1, now: start + 100 * second - 1)?.addresses == [addressA])
        #expect(cache.staleFallback("a.test", servedTo: 1, now: start + 100 * second) == nil)
        #expect(cache.counters.staleServes == 1)
    }

    @Test func neverFallsBackToANegativeAnswerButReportsItsTimeLeft() {
        var cache = cache()
        cache.insertNegative(for: "nx.test", family: .v4, source: "p", now: start, nameDoesNotExist: true)
        cache.insertNegative(for: "nx.test", family: .v6, source: "p", now: start, nameDoesNotExist: true)
        #expect(cache.staleFallback("nx.test", servedTo: 1, now: start + second) == nil)
        cache.insert([addressA], ttl: 100, for: "v4.test", family: .v4, source: "p", now: start)
        cache.insertNegative(for: "v4.test", family: .v6, source: "p", now: start + 100 * second)
        let stale = cache.staleFallback("v4.test", servedTo: 1, now: start + 110 * second)
        #expect(stale?.addresses == [addressA])
        #expect(stale?.secondsLeft == [.v4: -10, .v6: 10])
        #expect(cache.counters.staleServes == 1)
    }

    @Test func theStaleAgeIsTheOlderFamilysOnlyWhilePastItsTTL() {
        var cache = cache(serveStale: 60)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "p", now: start)
        cache.insert([addressV6], ttl: 100, for: "a.test", family: .v6, source: "p", now: start + 5 * second)
        cache.insertNegative(for: "nx.test", family: .v4, source: "p", now: start)
        #expect(cache.staleAge("a.test", now: start + 100 * second - 1) == nil)
        #expect(cache.staleAge("a.test", now: start + 102 * second) == 102 * second)
        #expect(cache.staleAge("a.test", now: start + 162 * second) == 157 * second)
        #expect(cache.staleAge("a.test", now: start + 165 * second) == nil)
        #expect(cache.staleAge("nx.test", now: start + 10 * second) == nil)
        #expect(cache.staleAge("unknown.test", now: start) == nil)
    }

    @Test func theOtherFamilysKeyOfANameEqualsTheKeyMadeFromTheName() {
        let key = ResolverCacheKey(name: "WWW.Example.COM.", family: .v4)
        let other = key.inFamily(.v6)
        #expect(other == ResolverCacheKey(name: "www.example.com", family: .v6))
        #expect(other.hashValue == ResolverCacheKey(name: "www.example.com", family: .v6).hashValue)
        #expect(other != key)
        #expect(key != ResolverCacheKey(name: "www.example.org", family: .v4))
    }

    @Test func bothFamiliesOfANameAreFoundWithOneKey() {
        var cache = ResolverCache()
        cache.insert([IPAddress("192.0.2.1")!], ttl: 300, for: "a.test", family: .v4, source: "google", now: 0)
        cache.insert([IPAddress("2001:db8::1")!], ttl: 300, for: "a.test", family: .v6, source: "google", now: 0)
        let key = ResolverCacheKey(name: "a.test", family: .v4)
        #expect(cache.lookup(key, now: 1).answer?.addresses == [IPAddress("192.0.2.1")!])
        #expect(cache.lookup(key.inFamily(.v6), now: 1).answer?.addresses == [IPAddress("2001:db8::1")!])
        #expect(cache.counters.hits == 2)
    }
}
