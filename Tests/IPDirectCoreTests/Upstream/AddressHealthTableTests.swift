import Testing
@testable import IPDirectCore

/// Scoring, quarantine and the balance modes, with time passed in (microseconds).
@Suite struct AddressHealthTableTests {
    static let a = SocketAddress("192.0.2.1:80")!
    static let b = SocketAddress("192.0.2.2:80")!
    static let c = SocketAddress("192.0.2.3:80")!
    static let host = UpstreamHostKey(host: "multi.test", port: 80)
    static let second: Int64 = 1_000_000

    static func table(quarantine: Int64 = 10 * second, max: Int64 = 300 * second) -> AddressHealthTable {
        AddressHealthTable(settings: AddressHealthSettings(quarantineMicros: quarantine, quarantineMaxMicros: max))
    }

    @Test func keepsTheAnswersOrderWhileNothingIsKnown() {
        var table = Self.table()
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .fastest, now: 0)
        #expect(plan.order.first == Self.a)
        #expect(Set(plan.order) == [Self.a, Self.b, Self.c])
    }

    @Test func ranksTheFastestAddressFirst() {
        var table = Self.table()
        table.recordConnected(Self.a, micros: 300, now: 0)
        table.recordFirstByte(Self.a, micros: 80_000, now: 0)
        table.recordConnected(Self.b, micros: 300, now: 0)
        table.recordFirstByte(Self.b, micros: 900, now: 0)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a])
        #expect(plan.reusable == [Self.b], "a far slower address gets no pooled requests")
        #expect(plan.keepsIdle == [Self.b])
    }

    @Test func exploresAnUntriedAddressBeforeAKnownSlowOne() {
        var table = Self.table()
        table.recordConnected(Self.a, micros: 300, now: 0)
        table.recordFirstByte(Self.a, micros: 80_000, now: 0)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a])
    }

    @Test func tiedAddressesTakeTurnsAtTheFront() {
        var table = Self.table()
        for address in [Self.a, Self.b] {
            table.recordConnected(address, micros: 200, now: 0)
            table.recordFirstByte(address, micros: 500, now: 0)
        }
        let firsts = (0..<4).map { table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: $0).order[0] }
        #expect(firsts == [Self.a, Self.b, Self.a, Self.b])
    }

    @Test func anAbandonedAttemptThatWaitedTheWholeDelayIsQuarantined() {
        var table = Self.table()
        let length = table.recordFailure(Self.a, outcome: .abandoned, reason: "no answer", waitedMicros: 250_000, now: 0)
        #expect(length == 10 * Self.second)
        #expect(table.state(of: Self.a) == .quarantined)
        let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b, Self.a], "quarantined addresses go last")
    }

    @Test func anAbandonedAttemptThatJustStartedCountsOnlyAsSlow() {
        var table = Self.table()
        #expect(table.recordFailure(Self.a, outcome: .abandoned, reason: "lost", waitedMicros: 20_000, now: 0) == nil)
        #expect(table.state(of: Self.a) == .healthy)
        #expect(table.health(of: Self.a)?.connect?.cost == 20_000)
    }

    @Test func quarantineDoublesPerFailureUpToTheMaximum() {
        var table = Self.table(quarantine: 10 * Self.second, max: 35 * Self.second)
        let lengths = (0..<4).map { table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: $0) }
        #expect(lengths == [10, 20, 35, 35].map { $0 * Self.second })
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

    @Test func aRecentFailurePenalisesTheScoreAndThePenaltyFades() {
        var table = Self.table()
        table.recordConnected(Self.a, micros: 300, now: 0)
        table.recordFailure(Self.a, outcome: .error, reason: "reset", waitedMicros: 0, now: 0)
        let fresh = table.health(of: Self.a)!.score(now: 0)!
        let later = table.health(of: Self.a)!.score(now: 120 * Self.second)!
        #expect(fresh > 1_000_000)
        #expect(later < 1_000)
    }

    @Test func spreadGivesEveryHealthyAddressItsTurn() {
        var table = Self.table()
        var counts: [SocketAddress: Int] = [:]
        for now in 0..<30 {
            let plan = table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .spread, now: Int64(now))
            counts[plan.order[0], default: 0] += 1
            #expect(plan.reusable == [plan.order[0]])
            #expect(Set(plan.keepsIdle) == [Self.a, Self.b, Self.c])
        }
        #expect(counts == [Self.a: 10, Self.b: 10, Self.c: 10])
    }

    @Test func spreadSkipsAQuarantinedAddress() {
        var table = Self.table()
        table.recordFailure(Self.b, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        let firsts = Set((0..<6).map { table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .spread, now: $0).order[0] })
        #expect(firsts == [Self.a, Self.c])
    }

    @Test func stickyStaysOnOneAddressUntilItFails() {
        var table = Self.table()
        for address in [Self.a, Self.b] { table.recordConnected(address, micros: 200, now: 0) }
        let firsts = (0..<5).map { table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .sticky, now: $0).order[0] }
        #expect(Set(firsts).count == 1)
        let stuck = firsts[0]
        table.recordFailure(stuck, outcome: .abandoned, reason: "no answer", waitedMicros: 300_000, now: 10)
        let after = (11..<15).map { table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .sticky, now: Int64($0)).order[0] }
        #expect(Set(after).count == 1)
        #expect(after[0] != stuck)
    }

    @Test func stickyMovesToTheAddressThatWonWhenItsAddressFailed() {
        var table = Self.table()
        for address in [Self.a, Self.b, Self.c] { table.recordConnected(address, micros: 200, now: 0) }
        let stuck = table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .sticky, now: 1).order[0]
        table.recordFailure(stuck, outcome: .abandoned, reason: "no answer", waitedMicros: 300_000, now: 2)
        let winner = [Self.a, Self.b, Self.c].last { $0 != stuck }!
        table.recordUsed(winner, for: Self.host)
        let after = (3..<8).map { table.plan(for: Self.host, candidates: [Self.a, Self.b, Self.c], mode: .sticky, now: Int64($0)).order[0] }
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
        table.recordConnected(Self.a, micros: 200, now: 0)
        let plan = table.plan(for: Self.host, candidates: [Self.b], mode: .fastest, now: 1)
        #expect(plan.order == [Self.b])
        #expect(!plan.keepsIdle.contains(Self.a))
    }

    @Test func unusedEntriesExpireAndTheTableStaysBounded() {
        var table = AddressHealthTable(settings: AddressHealthSettings(maxAddresses: 2, expiryMicros: 60 * Self.second))
        table.recordConnected(Self.a, micros: 1, now: 0)
        table.recordConnected(Self.b, micros: 1, now: 10)
        table.recordConnected(Self.c, micros: 1, now: 20)
        #expect(table.addresses.count <= 2)
        #expect(table.health(of: Self.a) == nil, "the least recently used went first")
        table.expire(now: 61 * Self.second)
        #expect(table.addresses.isEmpty)
    }

    @Test func forgetsEverythingOnANetworkChange() {
        var table = Self.table()
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        _ = table.plan(for: Self.host, candidates: [Self.a], mode: .fastest, now: 0)
        table.forgetAll()
        #expect(table.quarantinedCount == 0)
        #expect(table.state(of: Self.a) == .untried)
    }

    @Test func newAnswersAreProbedOnce() {
        var table = Self.table()
        #expect(table.takeUnknown([Self.a, Self.b], now: 0) == [Self.a, Self.b])
        #expect(table.takeUnknown([Self.a, Self.b, Self.c], now: 1) == [Self.c])
    }

    @Test func upstreamsJSONShowsRanksStatesAndScores() {
        var table = Self.table()
        table.recordConnected(Self.b, micros: 1_500, now: 0)
        table.recordFailure(Self.a, outcome: .refused, reason: "refused", waitedMicros: 0, now: 0)
        _ = table.plan(for: Self.host, candidates: [Self.a, Self.b], mode: .fastest, now: 0)
        let json = table.upstreamsJSON(now: 0)
        #expect(json.contains(#""host":"multi.test","port":80,"balance":"fastest""#))
        #expect(json.contains(#""address":"192.0.2.2","port":80,"rank":1,"state":"healthy","score_ms":1.500"#))
        #expect(json.contains(#""address":"192.0.2.1","port":80,"rank":2,"state":"quarantined""#))
        #expect(json.contains(#""quarantined_until_ms":10000,"last_error":"refused""#))
    }
}
