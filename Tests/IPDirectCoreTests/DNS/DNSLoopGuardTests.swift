import Testing
@testable import IPDirectCore

/// The loop guard: a probe name that comes back to our own listener means the system source asks ipdirect.
@Suite struct DNSLoopGuardTests {
    @Test func probeNamesAreRandomHexUnderTheInvalidSuffix() {
        #expect(DNSLoopGuard.probeName(nonce: 0xAB) == "00000000000000ab.ipdirect-loop.invalid")
        #expect(DNSLoopGuard.isProbeName("00000000000000AB.IPDirect-Loop.invalid"))
        #expect(DNSLoopGuard.isProbeName("00000000000000ab.ipdirect-loop.invalid.corp.example"))
        #expect(!DNSLoopGuard.isProbeName("ipdirect-loop.invalid.example.com"))
    }

    @Test func theProbeInFlightComingBackIsALoopReportedOnce() {
        var guardState = DNSLoopGuard()
        let name = guardState.begin(nonce: 1, now: 0)!
        // evdns asks A and AAAA, and may change the letters' case (0x20).
        #expect(guardState.arrived(name.uppercased()) == .loopDetected)
        #expect(guardState.arrived(name) == .loopKnown)
        #expect(guardState.loopDetected)
        #expect(guardState.detections == 1)
        #expect(guardState.finished(name) == .unchanged)
        #expect(guardState.loopDetected)
    }

    @Test func theProbeWithASearchDomainAppendedCountsToo() {
        var guardState = DNSLoopGuard()
        let name = guardState.begin(nonce: 1, now: 0)!
        #expect(guardState.arrived(name + ".corp.example") == .loopDetected)
    }

    @Test func otherProbeNamesAreNotOurs() {
        var guardState = DNSLoopGuard()
        _ = guardState.begin(nonce: 1, now: 0)
        #expect(guardState.arrived(DNSLoopGuard.probeName(nonce: 2)) == .notOurs)
        #expect(!guardState.loopDetected)
    }

    @Test func aProbeThatFinishedNoLongerCounts() {
        var guardState = DNSLoopGuard()
        let name = guardState.begin(nonce: 1, now: 0)!
        #expect(guardState.finished(name) == .unchanged)
        #expect(guardState.arrived(name) == .notOurs)
        #expect(guardState.detections == 0)
    }

    @Test func oneProbeAtATimeUntilItTimesOut() {
        var guardState = DNSLoopGuard()
        let first = guardState.begin(nonce: 1, now: 0)
        #expect(first != nil)
        #expect(guardState.begin(nonce: 2, now: DNSLoopGuard.probeTimeoutMillis - 1) == nil)
        let second = guardState.begin(nonce: 3, now: DNSLoopGuard.probeTimeoutMillis)
        #expect(second == DNSLoopGuard.probeName(nonce: 3))
        #expect(guardState.finished(first!) == .unchanged)
        #expect(guardState.arrived(second!) == .loopDetected)
    }

    @Test func aLaterProbeThatNeverArrivesClearsTheLoop() {
        var guardState = DNSLoopGuard()
        let looped = guardState.begin(nonce: 1, now: 0)!
        _ = guardState.arrived(looped)
        _ = guardState.finished(looped)
        let fixed = guardState.begin(nonce: 2, now: 10)!
        #expect(guardState.finished(fixed) == .loopCleared)
        #expect(!guardState.loopDetected)
        let again = guardState.begin(nonce: 3, now: 20)!
        #expect(guardState.arrived(again) == .loopDetected)
        #expect(guardState.detections == 2)
    }
}
