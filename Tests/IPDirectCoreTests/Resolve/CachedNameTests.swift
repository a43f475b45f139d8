import Testing
@testable import IPDirectCore

@Suite struct CachedNameTests {
    let now: CacheInstant = 100_000
    let v4 = IPAddress("192.0.2.1")!
    let v6 = IPAddress("2001:db8::1")!

    func answer(_ addresses: [IPAddress], source: String = "google", fetchedAgo: Int64 = 1_000, ttl: UInt32 = 60) -> CachedAnswer {
        CachedAnswer(addresses: addresses, source: source, fetchedAt: now - fetchedAgo, ttl: ttl)
    }

    @Test func nothingCachedIsAMiss() {
        #expect(CachedName(v4: .miss, v6: .miss, now: now) == .miss)
    }

    @Test func bothFamiliesFreshAnswerAtOnceWithoutRefresh() {
        let found = CachedName(v4: .fresh(answer([v4]), age: 1_000), v6: .fresh(answer([v6]), age: 1_000), now: now)
        guard case .addresses(let resolution, let refresh) = found else { Issue.record("\(found)"); return }
        #expect(resolution.addresses == [v4, v6])
        #expect(resolution.source == .httpdns("google"))
        #expect(resolution.cache == .hit(ageMillis: 1_000))
        #expect(resolution.secondsLeft == [.v4: 59, .v6: 59])
        #expect(resolution.sourceLabel == "cache:google")
        #expect(!refresh)
    }

    @Test func oneFamilyWithoutAddressesStillAnswersWithTheOther() {
        let found = CachedName(v4: .fresh(answer([v4]), age: 1_000), v6: .fresh(answer([]), age: 1_000), now: now)
        guard case .addresses(let resolution, false) = found else { Issue.record("\(found)"); return }
        #expect(resolution.addresses == [v4])
    }

    @Test func aFamilyPastItsRefreshPointAsksForOneRefresh() {
        let due = answer([v6], fetchedAgo: 50_000)
        let found = CachedName(v4: .fresh(answer([v4]), age: 1_000), v6: .refreshDue(due, age: 50_000), now: now)
        guard case .addresses(let resolution, true) = found else { Issue.record("\(found)"); return }
        #expect(resolution.cache == .hit(ageMillis: 50_000))
    }

    @Test func anExpiredAnswerIsServedStaleAndRefreshed() {
        let old = answer([v4], fetchedAgo: 90_000)
        let found = CachedName(v4: .stale(old, age: 90_000, refresh: true), v6: .fresh(answer([]), age: 1_000), now: now)
        guard case .addresses(let resolution, true) = found else { Issue.record("\(found)"); return }
        #expect(resolution.cache == .stale(ageMillis: 90_000))
        #expect(resolution.sourceLabel == "stale:google")
        #expect(resolution.secondsLeft[.v4] == -30)
    }

    @Test func aStaleAnswerWhoseRefreshIsUnderWayIsServedWithoutAnotherRefresh() {
        let old = answer([v4], fetchedAgo: 90_000)
        let found = CachedName(v4: .stale(old, age: 90_000, refresh: false), v6: .fresh(answer([]), age: 1_000), now: now)
        guard case .addresses(let resolution, false) = found else { Issue.record("\(found)"); return }
        #expect(resolution.cache == .stale(ageMillis: 90_000))
    }

    @Test func aMissingFamilyNextToAddressesIsFetchedInTheBackground() {
        let found = CachedName(v4: .fresh(answer([v4]), age: 1_000), v6: .miss, now: now)
        guard case .addresses(let resolution, true) = found else { Issue.record("\(found)"); return }
        #expect(resolution.addresses == [v4])
    }

    @Test func onlyANegativeFamilyKnownMustBeAsked() {
        #expect(CachedName(v4: .fresh(answer([]), age: 1_000), v6: .miss, now: now) == .miss)
    }

    @Test func bothFamiliesNegativeIsANegativeAnswer() {
        let found = CachedName(v4: .fresh(answer([], source: "system"), age: 1), v6: .fresh(answer([], source: "system"), age: 1), now: now)
        #expect(found == .negative(source: .system, nameDoesNotExist: false))
    }
}

@Suite struct NameAnswerTests {
    let v4 = AnsweredAddress(address: IPAddress("192.0.2.1")!, ttl: 30)
    let v6 = AnsweredAddress(address: IPAddress("2001:db8::1")!, ttl: 40)

    @Test func splittingSortsAddressesIntoFamilies() {
        let answer = NameAnswer(splitting: .addresses([v6, v4]))
        #expect(answer.v4 == .addresses([v4]))
        #expect(answer.v6 == .addresses([v6]))
        #expect(answer.addresses == [v4.address, v6.address])
    }

    @Test func splittingAnAnswerOfOneFamilyLeavesTheOtherWithoutAddresses() {
        let answer = NameAnswer(splitting: .addresses([v4]))
        #expect(answer.v6 == .noAddresses)
        #expect(!answer.isNegative)
    }

    @Test func splittingNegativeAnswers() {
        #expect(NameAnswer(splitting: .nameDoesNotExist).nameDoesNotExist)
        #expect(NameAnswer(splitting: .noAddresses).isNegative)
        #expect(!NameAnswer(splitting: .noAddresses).nameDoesNotExist)
    }

    @Test func nonPublicAddressesAreDroppedAndReported() {
        let loopback = AnsweredAddress(address: IPAddress("127.0.0.1")!, ttl: 30)
        let unique = AnsweredAddress(address: IPAddress("fd00::1")!, ttl: 30)
        let (kept, refused) = NameAnswer(v4: .addresses([loopback, v4]), v6: .addresses([unique])).keepingPublicAddresses()
        #expect(kept.v4 == .addresses([v4]))
        #expect(kept.v6 == .noAddresses)
        #expect(refused == [loopback.address, unique.address])
    }
}
