import Testing
@testable import IPDirectCore

/// Scoring, quarantine and the balance modes, with time passed in (microseconds).
@Suite struct AddressHealthTableTests {
    static let a = SocketAddress("192.0.2.1:80")!
    static let b = SocketAddress("192.0.2.2:80")!
    static let c = SocketAddress("192.0.2.3:80")!
    static let host = UpstreamHostKey(host: "multi.test", port: 80)
    static let otherHost = UpstreamHostKey(host: "other.test", port: 80)
    static let second: Int64 = 1_000_000

    static func table(quarantine: Int64 = 10 * second, max: Int64 = 300 * second) -> AddressHealthTable {
        AddressHealthTable(settings: AddressHealthSettings(quarantineMicros: quarantine, quarantineMaxMicros: max))
    }

    /// A connection that stood and carried a request answered after `firstByte`.
    static func served(_ table: inout AddressHealthTable, _ address: SocketAddress, host: UpstreamHostKey = host,
                       connect: Int64 = 300, firstByte: Int64? = nil, now: Int64 = 0) {
        table.recordConnectTime(address, micros: connect, now: now)
        table.recordSuccess(address, now: now)
        if let firstByte { table.recordFirstByte(address, for: host, micros: firstByte, now: now) }
    }

    static func firsts(_ table: inout AddressHealthTable, _ candidates: [SocketAddress], mode: BalanceMode,
                       from start: Int64, count: Int) -> [SocketAddress] {
        (0..<count).map { table.plan(for: host, candidates: candidates, mode: mode, now: start + Int64($0)).order[0] }
    }

    @Test func keepsTheAnswersOrderWhileNothingIsKnown() {
        var table = Self.table()
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .fastest, now: 0)
        #expect(plan.order == [Self.a, Self.b, Self.c])
    }

    @Test func ranksTheAddressThatAnswersThisHostFastestFirst() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        Self.served(&table, Self.a, firstByte: 80_000)
        Self.served(&table, Self.b, firstByte: 900)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a])
        #expect(plan.reusable == [Self.b], "a far slower address gets no pooled requests")
        #expect(plan.keepsIdle == [Self.b])
    }

    @Test func oneHostsSlowAnswersDoNotMoveAnotherHostOffTheAddress() {
        var table = Self.table()
        for host in [Self.host, Self.otherHost] { _ = table.plan(for: host, candidates: [Self.a, Self.b], mode: .fastest, now: 0) }
        Self.served(&table, Self.a, host: Self.host, firstByte: 30_000_000)
        Self.served(&table, Self.b, host: Self.host, firstByte: 1_000)
        Self.served(&table, Self.a, host: Self.otherHost, firstByte: 1_000)
        Self.served(&table, Self.b, host: Self.otherHost, firstByte: 1_000)
        #expect(table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1).order[0] == Self.b)
        let other = table.plan(for: Self.otherHost, candidates: [Self.a, Self.b], mode: .fastest, now: 2)
        #expect(Set(other.reusable) == [Self.a, Self.b], "the long poll on multi.test says nothing of other.test")
    }

    @Test func exploresAnUntriedAddressBeforeAKnownSlowOne() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 0)
        Self.served(&table, Self.a, firstByte: 80_000)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a])
    }

    @Test func anUntriedAddressDoesNotCloseThePooledConnectionsOfMeasuredOnes() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 0)
        Self.served(&table, Self.a, connect: 20_000, firstByte: 30_000)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(Set(plan.keepsIdle) == [Self.a, Self.b])
        #expect(plan.reusable.contains(Self.a))
    }

    @Test func aHostThatKeepsItsOneAddressIsPlannedWithoutANewList() {
        var table = Self.table()
        let first = table.plan(for: Self.host, only: Self.a, mode: .fastest, now: 0)
        let second = table.plan(for: Self.host, only: Self.a, mode: .fastest, now: 1)
        #expect(first == AddressPlan(order: [Self.a], reusable: [Self.a]))
        #expect(second == first)
        let firstStorage = first.order.withUnsafeBufferPointer { $0.baseAddress }
        #expect(second.order.withUnsafeBufferPointer { $0.baseAddress } == firstStorage)
    }

    @Test func aHostWhoseOneAddressChangesForgetsWhatItLearnedOfTheOld() {
        var table = Self.table()
        _ = table.plan(for: Self.host, only: Self.a, mode: .fastest, now: 0)
        _ = table.recordHostFailure(Self.a, for: Self.host, reason: "hostname mismatch", now: 1)
        #expect(table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 2).order == [Self.b, Self.a])
        #expect(table.plan(for: Self.host, only: Self.b, mode: .fastest, now: 3) == AddressPlan(order: [Self.b], reusable: [Self.b]))
        #expect(table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 4).order == [Self.a, Self.b])
    }

    @Test func tiedAddressesTakeTurnsAtTheFront() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        for address in [Self.a, Self.b] { Self.served(&table, address, connect: 200, firstByte: 500) }
        #expect(Self.firsts(&table, [Self.a, Self.b], mode: .fastest, from: 1, count: 4) == [Self.b, Self.a, Self.b, Self.a])
    }

    @Test func anAbandonedAttemptThatWaitedTheWholeDelayIsQuarantined() {
        var table = Self.table()
        let length = table.recordFailure(Self.a, outcome: .abandoned, reason: "no answer", waitedMicros: 250_000, now: 0)
        #expect(length == 10 * Self.second)
        #expect(table.state(of: Self.a) == .quarantined)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a], "quarantined addresses go last")
    }

    @Test func anAbandonedAttemptCountsAsAtLeastAsSlowAsItWaited() {
        var table = Self.table()
        #expect(table.recordFailure(Self.a, outcome: .abandoned, reason: "lost", waitedMicros: 20_000, now: 0) == nil)
        #expect(table.state(of: Self.a) == .healthy)
        #expect(table.health(of: Self.a)?.connect?.cost == 20_000)
        table.recordConnectTime(Self.b, micros: 200_000, now: 0)
        table.recordFailure(Self.b, outcome: .abandoned, reason: "lost", waitedMicros: 5_000, now: 60 * Self.second)
        #expect(table.health(of: Self.b)?.connect?.cost == 200_000, "a short wait never makes it look faster")
    }

    @Test func quarantineDoublesPerFailureUpToTheMaximum() {
        var table = Self.table(quarantine: 10 * Self.second, max: 35 * Self.second)
        let lengths = (0..<4).map { table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: $0) }
        #expect(lengths == [10, 20, 35, 35].map { $0 * Self.second })
    }

    @Test func aTCPConnectBeforeABrokenHandshakeDoesNotResetTheBackOff() {
        var table = Self.table()
        var lengths: [Int64?] = []
        for round in 0..<4 {
            let now = Int64(round) * 400 * Self.second
            table.recordConnectTime(Self.a, micros: 300, now: now)
            lengths.append(table.recordFailure(Self.a, outcome: .tlsFailure, reason: "handshake", waitedMicros: 0, now: now))
            table.probeSucceeded(Self.a, micros: 300, now: now + 1)
        }
        #expect(lengths == [10, 20, 40, 80].map { $0 * Self.second })
        table.recordSuccess(Self.a, now: 2_000 * Self.second)
        #expect(table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 2_001 * Self.second)
                == 10 * Self.second, "a usable connection starts the back-off over")
    }

    @Test func aQuarantinedAddressIsStillTriedWhenItIsTheOnlyOneLeft() {
        var table = Self.table()
        table.recordFailure(Self.a, outcome: .timeout, reason: "timed out", waitedMicros: 0, now: 0)
        table.recordFailure(Self.b, outcome: .refused, reason: "refused", waitedMicros: 0, now: 5)
        let plan = table.plan(for: Self.host, candidates: [Self.b, Self.a], mode: .fastest, now: 10)
        #expect(plan.order == [Self.a, Self.b], "the one whose quarantine ends first goes first")
    }

    @Test func onlyAProbeEndsAQuarantine() {
        var table = Self.table()
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        #expect(table.takeDueProbes(now: 9 * Self.second).isEmpty)
        #expect(table.takeDueProbes(now: 10 * Self.second) == [Self.a])
        #expect(table.state(of: Self.a) == .probing)
        #expect(table.takeDueProbes(now: 11 * Self.second).isEmpty, "one probe at a time")
        table.probeFailed(Self.a, reason: "timed out", now: 12 * Self.second)
        #expect(table.state(of: Self.a) == .quarantined)
        #expect(table.takeDueProbes(now: 31 * Self.second).isEmpty, "the second quarantine is twice as long")
        #expect(table.takeDueProbes(now: 32 * Self.second) == [Self.a])
        let recovered = table.probeSucceeded(Self.a, micros: 400, now: 33 * Self.second)
        #expect(recovered)
        #expect(table.state(of: Self.a) == .healthy)
        #expect(table.quarantinedCount == 0)
    }

    @Test func aDeadAddressThatLeftEveryAnswerExpiresInsteadOfBeingProbedForever() {
        var table = AddressHealthTable(settings: AddressHealthSettings(quarantineMicros: 10 * Self.second,
                                                                       quarantineMaxMicros: 60 * Self.second,
                                                                       expiryMicros: 600 * Self.second))
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 0)
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        var now: Int64 = 0
        while now < 6_000 * Self.second {
            now += 10 * Self.second
            for address in table.takeDueProbes(now: now) { table.probeFailed(address, reason: "refused", now: now) }
            table.expire(now: now)
        }
        #expect(table.health(of: Self.a) == nil)
    }

    @Test func aRecentFailurePenalisesTheScoreAndThePenaltyFades() {
        var table = Self.table()
        table.recordConnectTime(Self.a, micros: 300, now: 0)
        table.recordFailure(Self.a, outcome: .error, reason: "reset", waitedMicros: 0, now: 0)
        let fresh = table.score(of: Self.a, for: Self.host, now: 0)!
        let later = table.score(of: Self.a, for: Self.host, now: 120 * Self.second)!
        #expect(fresh > 1_000_000)
        #expect(later < 1_000)
    }

    @Test func aCertificateFailureForOneHostLeavesTheAddressToOtherHosts() {
        var table = Self.table()
        for host in [Self.host, Self.otherHost] { _ = table.plan(for: host, candidates: [Self.a, Self.b], mode: .fastest, now: 0) }
        let length = table.recordHostFailure(Self.a, for: Self.host, reason: "hostname mismatch", now: 1)
        #expect(length == 10 * Self.second)
        #expect(table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 2).order == [Self.b, Self.a])
        #expect(table.state(of: Self.a, for: Self.host, now: 2) == .quarantined)
        #expect(table.state(of: Self.a) == .untried, "the path itself is not quarantined")
        #expect(table.state(of: Self.a, for: Self.otherHost, now: 2) == .untried)
        #expect(table.plan(for: Self.otherHost, candidates: [Self.a, Self.b], mode: .fastest, now: 3).reusable.contains(Self.a))
        #expect(table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 11 * Self.second).order.first == Self.a,
                "the host tries it again once its back-off ran out")
    }

    @Test func hostFailuresBackOffUntilTheHostIsAnsweredThere() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        let lengths = (1...3).map { table.recordHostFailure(Self.a, for: Self.host, reason: "reset", now: Int64($0)) }
        #expect(lengths == [10, 20, 40].map { $0 * Self.second })
        table.recordFirstByte(Self.a, for: Self.host, micros: 500, now: 100 * Self.second)
        #expect(table.recordHostFailure(Self.a, for: Self.host, reason: "reset", now: 101 * Self.second) == 10 * Self.second)
    }

    @Test func spreadGivesEveryHealthyAddressItsTurnWhateverTheAnswersOrder() {
        var table = Self.table()
        var counts: [SocketAddress: Int] = [:]
        let orders = [[Self.a, Self.b, Self.c], [Self.c, Self.a, Self.b], [Self.b, Self.c, Self.a]]
        for now in 0..<30 {
            let plan = table.plan(for: Self.host, candidates: orders[now % 3], mode: .spread, now: Int64(now))
            counts[plan.order[0], default: 0] += 1
            #expect(plan.reusable == [plan.order[0]])
            #expect(Set(plan.keepsIdle) == [Self.a, Self.b, Self.c])
        }
        #expect(counts == [Self.a: 10, Self.b: 10, Self.c: 10])
    }

    @Test func spreadSkipsAQuarantinedAddress() {
        var table = Self.table()
        table.recordFailure(Self.b, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        let firsts = Set(Self.firsts(&table, [Self.a, Self.b, Self.c], mode: .spread, from: 0, count: 6))
        #expect(firsts == [Self.a, Self.c])
    }

    @Test func stickyStaysOnOneAddressUntilItFails() {
        var table = Self.table()
        for address in [Self.a, Self.b] { Self.served(&table, address, connect: 200) }
        let firsts = Self.firsts(&table, [Self.a, Self.b], mode: .sticky, from: 0, count: 5)
        #expect(Set(firsts).count == 1)
        let stuck = firsts[0]
        table.recordFailure(stuck, outcome: .abandoned, reason: "no answer", waitedMicros: 300_000, now: 10)
        let after = Self.firsts(&table, [Self.a, Self.b], mode: .sticky, from: 11, count: 4)
        #expect(Set(after).count == 1)
        #expect(after[0] != stuck)
    }

    @Test func stickyMovesToTheAddressThatWonWhenItsAddressFailed() {
        var table = Self.table()
        for address in [Self.a, Self.b, Self.c] { Self.served(&table, address, connect: 200) }
        let stuck = table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .sticky, now: 1).order[0]
        table.recordFailure(stuck, outcome: .abandoned, reason: "no answer", waitedMicros: 300_000, now: 2)
        let winner = [Self.a, Self.b, Self.c].last { $0 != stuck }!
        table.recordUsed(winner, for: Self.host)
        let after = Self.firsts(&table, [Self.a, Self.b, Self.c], mode: .sticky, from: 3, count: 5)
        #expect(after.allSatisfy { $0 == winner })
    }

    @Test func interleavesFamiliesStartingWithTheBest() {
        let v6a = SocketAddress("[2001:db8::1]:80")!
        let v6b = SocketAddress("[2001:db8::2]:80")!
        let v6c = SocketAddress("[2001:db8::3]:80")!
        let ordered = AddressHealthTable.interleavingFamilies([v6a, v6b, Self.a, Self.b, v6c])
        #expect(ordered == [v6a, Self.a, v6b, Self.b, v6c])
    }

    @Test func aPlanOfANewAnswerAlternatesFamiliesInTheAnswersOrder() {
        var table = Self.table()
        let v6a = SocketAddress("[2001:db8::1]:80")!
        let v6b = SocketAddress("[2001:db8::2]:80")!
        let plan = table.plan(for: Self.host, candidates: [v6a, v6b, Self.a, Self.b], mode: .fastest, now: 0)
        #expect(plan.order == [v6a, Self.a, v6b, Self.b])
    }

    @Test func addressesNoLongerInTheAnswerAreNotReused() {
        var table = Self.table()
        Self.served(&table, Self.a, connect: 200)
        let plan = table.plan(for: Self.host, candidates: [Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b])
        #expect(!plan.keepsIdle.contains(Self.a))
    }

    @Test func unusedEntriesExpireAndTheTableStaysBounded() {
        var table = AddressHealthTable(settings: AddressHealthSettings(maxAddresses: 20, expiryMicros: 60 * Self.second))
        let many = (1...30).map { SocketAddress(ip: .v4(0xC000_0200 + UInt32($0)), port: 80) }
        for (index, address) in many.enumerated() { table.recordConnectTime(address, micros: 1, now: Int64(index)) }
        #expect(table.addresses.count <= 20)
        #expect(table.health(of: many[0]) == nil, "the least recently used went first")
        #expect(table.health(of: many[29]) != nil)
        table.expire(now: 61 * Self.second)
        #expect(table.addresses.isEmpty)
    }

    @Test func plansKeepTheAddressesOfTheAnswerAlive() {
        var table = AddressHealthTable(settings: AddressHealthSettings(expiryMicros: 60 * Self.second))
        for minute in 0..<5 {
            _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: Int64(minute) * 50 * Self.second)
            table.expire(now: Int64(minute) * 50 * Self.second + 1)
        }
        #expect(table.health(of: Self.a) != nil && table.health(of: Self.b) != nil)
    }

    @Test func forgetsEverythingOnANetworkChange() {
        var table = Self.table()
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 0)
        table.forgetAll()
        #expect(table.quarantinedCount == 0)
        #expect(table.state(of: Self.a) == .untried)
        #expect(table.recentHosts(limit: 10).isEmpty)
    }

    @Test func recentHostsComeMostRecentlyUsedFirst() {
        var table = Self.table()
        _ = table.plan(for: Self.otherHost, candidates: [Self.a], mode: .fastest, now: 1)
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 2)
        #expect(table.recentHosts(limit: 10) == ["multi.test", "other.test"])
        #expect(table.recentHosts(limit: 1) == ["multi.test"])
    }

    @Test func newAnswersAreProbedOnce() {
        var table = Self.table()
        #expect(table.takeUnknown([Self.a, Self.b], now: 0) == [Self.a, Self.b])
        #expect(table.takeUnknown([Self.a, Self.b, Self.c], now: 1) == [Self.c])
    }

    @Test func upstreamsJSONShowsRanksStatesAndScores() {
        var table = Self.table()
        table.recordConnectTime(Self.b, micros: 1_500, now: 0)
        table.recordSuccess(Self.b, now: 0)
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        table.recordFirstByte(Self.b, for: Self.host, micros: 2_000, now: 0)
        let json = table.upstreamsJSON(now: 0)
        #expect(json.contains(#""host":"multi.test","port":80,"balance":"fastest","answer_changed_s":null"#))
        #expect(json.contains(#""address":"192.0.2.2","port":80,"rank":1,"state":"healthy","score_ms":3.500,"connect_ms":1.500,"first_byte_ms":2.000"#))
        #expect(json.contains(#""address":"192.0.2.1","port":80,"rank":2,"state":"quarantined""#))
        #expect(json.contains(#""quarantined_until_ms":10000,"last_error":"refused""#))
    }

    @Test func upstreamsJSONCountsEachAddresssRaceWinsForItsHost() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        table.recordRaceWin(Self.b, for: Self.host)
        table.recordRaceWin(Self.b, for: Self.host)
        table.recordRaceWin(Self.a, for: Self.otherHost)
        let json = table.upstreamsJSON(now: 0)
        #expect(json.contains(#""address":"192.0.2.2","port":80,"rank":2"#) || json.contains(#""address":"192.0.2.2","port":80,"rank":1"#))
        #expect(json.contains(#""failures":0,"race_wins":2,"quarantined_until_ms":null,"last_error":null}"#))
        #expect(json.contains(#""failures":0,"race_wins":0,"#))
        #expect(table.health(of: Self.b, for: Self.host)?.raceWins == 2)
        #expect(table.health(of: Self.a, for: Self.otherHost) == nil)
    }

    @Test func aHostWhoseAnswerChangedSaysHowLongAgo() {
        var table = Self.table()
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        _ = table.plan(for: Self.host, candidates: [Self.b, Self.a], mode: .fastest, now: Self.second)
        #expect(table.upstreamsJSON(now: 2 * Self.second).contains(#""answer_changed_s":null"#))
        _ = table.plan(for: Self.host, candidates: [Self.c, Self.a], mode: .fastest, now: 3 * Self.second)
        #expect(table.upstreamsJSON(now: 10 * Self.second).contains(#""answer_changed_s":7,"#))
        _ = table.plan(for: Self.otherHost, only: Self.a, mode: .fastest, now: 11 * Self.second)
        _ = table.plan(for: Self.otherHost, only: Self.b, mode: .fastest, now: 12 * Self.second)
        #expect(table.upstreamsJSON(now: 12 * Self.second).contains(#""host":"other.test","port":80,"balance":"fastest","answer_changed_s":0,"#))
    }
}
