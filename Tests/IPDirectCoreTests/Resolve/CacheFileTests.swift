import Testing
@testable import IPDirectCore

@Suite struct CacheFileTests {
    let second: Int64 = 1_000
    /// The monotonic clock of the writing and of the reading daemon: the reader
    /// started after a reboot, so its clock is far behind the writer's.
    let writerNow: CacheInstant = 9_000_000
    let readerNow: CacheInstant = 2_000
    /// 2025-11-22 15:14:50 UTC in unix milliseconds.
    let writtenAtUnix: Int64 = 1_763_824_490_000
    let settings = ResolverCacheSettings(minTTL: 10, maxTTL: 1_000, negativeTTL: 20, serveStale: 60, maxEntries: 100)
    let addressA = IPAddress("203.0.113.7")!
    let addressB = IPAddress("203.0.113.8")!
    let addressV6 = IPAddress("2001:db8::7")!

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func load(_ text: String, unixTime: Int64? = nil, settings: ResolverCacheSettings? = nil) -> CacheFileContents {
        ResolverCache.load(Array(text.utf8), now: readerNow, unixTimeMillis: unixTime ?? writtenAtUnix,
                           settings: settings ?? self.settings)
    }

    @Test func writesAVersionLineThenOneAnswerPerLine() {
        var cache = ResolverCache(settings: settings)
        cache.insert([addressA, addressB], ttl: 300, for: "a.test", family: .v4, source: "dns google",
                     now: writerNow - 5 * second)
        cache.insertNegative(for: "nx.test", family: .v6, source: "system", now: writerNow)
        let lines = text(cache.serialized(now: writerNow, unixTimeMillis: writtenAtUnix)).split(separator: "\n")
        #expect(lines == [
            "ipdirect-cache 1",
            "# name family fetched_unix_ms ttl addresses source",
            "nx.test v6 1763824490000 20 - system",
            "a.test v4 1763824485000 300 203.0.113.7,203.0.113.8 dns google",
        ])
    }

    @Test func roundTripsAnswersAgesAndRecencyAcrossARestart() {
        var cache = ResolverCache(settings: settings)
        cache.insert([addressA], ttl: 300, for: "old.test", family: .v4, source: "p", now: writerNow - 100 * second)
        cache.insert([addressV6], ttl: 300, for: "new.test", family: .v6, source: "aliyun main", now: writerNow)
        cache.insertNegative(for: "nx.test", family: .v4, source: "system", now: writerNow)
        let bytes = cache.serialized(now: writerNow, unixTimeMillis: writtenAtUnix)

        // Read back 10 s of wall-clock time later.
        let contents = ResolverCache.load(bytes, now: readerNow, unixTimeMillis: writtenAtUnix + 10 * second,
                                          settings: settings)
        #expect(contents.problems.isEmpty)
        #expect(contents.expiredCount == 0)
        var restored = ResolverCache(settings: settings)
        restored.restore(contents)
        #expect(restored.count == 3)
        #expect(restored.lookup("old.test", family: .v4, now: readerNow) == .fresh(
            CachedAnswer(addresses: [addressA], source: "p", fetchedAt: readerNow - 110 * second, ttl: 300),
            age: 110 * second))
        #expect(restored.lookup("new.test", family: .v6, now: readerNow).answer?.source == "aliyun main")
        #expect(restored.lookup("nx.test", family: .v4, now: readerNow).answer?.isNegative == true)

        // The least recently used entry before the restart is still the first evicted.
        var small = ResolverCache(settings: ResolverCacheSettings(minTTL: 10, maxTTL: 1_000, negativeTTL: 20,
                                                                  serveStale: 60, maxEntries: 3))
        small.restore(contents)
        small.insert([addressB], ttl: 300, for: "extra.test", family: .v4, source: "p", now: readerNow)
        #expect(small.lookup("old.test", family: .v4, now: readerNow) == .miss)
        #expect(small.lookup("nx.test", family: .v4, now: readerNow) != .miss)
    }

    @Test func keepsNoSuchNameApartFromNoAddress() {
        var cache = ResolverCache(settings: settings)
        cache.insertNegative(for: "gone.test", family: .v4, source: "p", now: writerNow, nameDoesNotExist: true)
        cache.insertNegative(for: "v6only.test", family: .v4, source: "p", now: writerNow)
        let written = text(cache.serialized(now: writerNow, unixTimeMillis: writtenAtUnix))
        #expect(written.contains("gone.test v4 \(writtenAtUnix) 20 nxdomain p\n"))
        #expect(written.contains("v6only.test v4 \(writtenAtUnix) 20 - p\n"))
        var restored = ResolverCache(settings: settings)
        restored.restore(load(written))
        #expect(restored.peek("gone.test", family: .v4, now: readerNow)?.nameDoesNotExist == true)
        #expect(restored.peek("v6only.test", family: .v4, now: readerNow)?.nameDoesNotExist == false)
    }

    @Test func dropsEntriesPastTheirStaleWindowOnLoad() {
        // ttl 100 + serve_stale 60: usable until 160 s after the fetch.
        let file = """
            ipdirect-cache 1
            stale.test v4 \(writtenAtUnix - 159 * second) 100 203.0.113.7 p
            gone.test v4 \(writtenAtUnix - 160 * second) 100 203.0.113.7 p
            nx-gone.test v4 \(writtenAtUnix - 20 * second) 20 - p
            nx-live.test v4 \(writtenAtUnix - 19 * second) 20 - p

            """
        let contents = load(file)
        #expect(contents.entries.map(\.key.name) == ["stale.test", "nx-live.test"])
        #expect(contents.expiredCount == 2)
        #expect(contents.problems.isEmpty)
        let noStale = load(file, settings: ResolverCacheSettings(minTTL: 10, maxTTL: 1_000, negativeTTL: 20,
                                                                 serveStale: 0, maxEntries: 100))
        #expect(noStale.entries.map(\.key.name) == ["nx-live.test"])
    }

    @Test func countsTheDowntimeTowardsTheAge() {
        let file = "ipdirect-cache 1\na.test v4 \(writtenAtUnix) 100 203.0.113.7 p\n"
        #expect(load(file, unixTime: writtenAtUnix + 159 * second).entries.count == 1)
        #expect(load(file, unixTime: writtenAtUnix + 160 * second).expiredCount == 1)
        // A wall clock set back makes the answer new, never from the future.
        #expect(load(file, unixTime: writtenAtUnix - 500 * second).entries.first?.answer.fetchedAt == readerNow)
    }

    @Test(arguments: [
        ("a.test v4 1 100 203.0.113.7", CacheFileProblem.Reason.wrongFieldCount(5)),
        ("a.test v4 1 100 203.0.113.7 ", .missingSource),
        ("a.test v5 1 100 203.0.113.7 p", .badFamily("v5")),
        ("a.test v4 soon 100 203.0.113.7 p", .badFetchTime("soon")),
        ("a.test v4 -5 100 203.0.113.7 p", .badFetchTime("-5")),
        ("a.test v4 1 -1 203.0.113.7 p", .badTTL("-1")),
        ("a.test v4 1 4294967296 203.0.113.7 p", .badTTL("4294967296")),
        ("a.test v4 1 100 203.0.113.300 p", .badAddress("203.0.113.300")),
        ("a.test v4 1 100 203.0.113.7,,203.0.113.8 p", .badAddress("")),
        ("a.test v4 1 100 2001:db8::1 p", .addressFamilyMismatch("2001:db8::1")),
        ("a.test v6 1 100 ::1,203.0.113.7 p", .addressFamilyMismatch("203.0.113.7")),
        ("a.test\tv4 1 100 203.0.113.7 p", .wrongFieldCount(5)),
        ("bad\u{7F}name v4 1 100 203.0.113.7 p", .badName("bad\u{7F}name")),
        ("  v4 1 100 203.0.113.7 p", .badName("")),
    ])
    func rejectsAMalformedLineWithItsReason(line: String, reason: CacheFileProblem.Reason) {
        let contents = load("ipdirect-cache 1\n# comment\n\(line)\nok.test v4 \(writtenAtUnix) 100 203.0.113.7 p\n")
        #expect(contents.problems == [CacheFileProblem(line: 3, reason: reason)])
        #expect(contents.entries.map(\.key.name) == ["ok.test"], "one bad line does not spoil the rest")
    }

    @Test func rejectsOverlongNamesAndAddressLists() {
        let longName = String(repeating: "a", count: CacheFile.maxNameLength + 1)
        let manyAddresses = (1...(CacheFile.maxAddressesPerEntry + 1)).map { "203.0.113.\($0)" }.joined(separator: ",")
        let contents = load("ipdirect-cache 1\n\(longName) v4 1 100 203.0.113.7 p\na.test v4 1 100 \(manyAddresses) p\n")
        #expect(contents.problems == [
            CacheFileProblem(line: 2, reason: .badName(longName)),
            CacheFileProblem(line: 3, reason: .tooManyAddresses(CacheFile.maxAddressesPerEntry + 1)),
        ])
        #expect(contents.problems[1].description == "cache file line 3: 65 addresses, more than 64")
    }

    @Test(arguments: [
        ("", CacheFileProblem.Reason.missingVersionLine),
        ("\na.test v4 1 100 203.0.113.7 p\n", .missingVersionLine),
        ("ipdirect-cache 2\na.test v4 1 100 203.0.113.7 p\n", .unsupportedVersion("ipdirect-cache 2")),
        ("a.test v4 1 100 203.0.113.7 p\n", .unsupportedVersion("a.test v4 1 100 203.0.113.7 p")),
    ])
    func refusesAFileWithoutTheVersionLine(file: String, reason: CacheFileProblem.Reason) {
        let contents = load(file)
        #expect(contents.entries.isEmpty)
        #expect(contents.problems == [CacheFileProblem(line: 1, reason: reason)])
    }

    @Test func readsNoMoreEntriesThanTheCacheHolds() {
        let small = ResolverCacheSettings(minTTL: 10, maxTTL: 1_000, negativeTTL: 20, serveStale: 60, maxEntries: 2)
        let lines = (1...5).map { "n\($0).test v4 \(writtenAtUnix) 100 203.0.113.7 p" }.joined(separator: "\n")
        let contents = load("ipdirect-cache 1\n\(lines)\n", settings: small)
        #expect(contents.entries.map(\.key.name) == ["n1.test", "n2.test"])
        #expect(contents.problems == [CacheFileProblem(line: 4, reason: .tooManyEntries(limit: 2))])
    }

    @Test func normalisesNamesAndReclampsTTLsOnRestore() {
        let contents = load("ipdirect-cache 1\nWWW.Example.COM. v4 \(writtenAtUnix) 5000 203.0.113.7 p\n")
        var cache = ResolverCache(settings: settings)
        cache.restore(contents)
        #expect(cache.lookup("www.example.com", family: .v4, now: readerNow).answer?.ttl == 1_000)
    }

    @Test func keepsASourceWithLineBreaksOnOneLine() {
        var cache = ResolverCache(settings: settings)
        cache.insert([addressA], ttl: 100, for: "a.test", family: .v4, source: "evil\nb.test v4 0 100 1.2.3.4 x",
                     now: writerNow)
        let contents = ResolverCache.load(cache.serialized(now: writerNow, unixTimeMillis: writtenAtUnix),
                                          now: readerNow, unixTimeMillis: writtenAtUnix, settings: settings)
        #expect(contents.entries.map(\.key.name) == ["a.test"])
        #expect(contents.entries.first?.answer.source == "evil?b.test v4 0 100 1.2.3.4 x")
    }
}
