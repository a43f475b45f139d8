import Testing
@testable import IPDirectCore

/// The failed-login slow-down, with time passed in as milliseconds.
@Suite struct LoginThrottleTests {
    let settings = LoginThrottle.Settings()
    let client = IPAddress("192.0.2.10")!
    let neighbour = IPAddress("192.0.2.11")!

    /// Fails `count` times, one millisecond apart from `start`; returns the verdict of the last failure.
    @discardableResult
    func fail(_ throttle: inout LoginThrottle, _ client: IPAddress, times count: Int, from start: Int64) -> LoginThrottle.Verdict {
        var last = LoginThrottle.Verdict.allowed
        for step in 0..<count { last = throttle.failed(client, now: start + Int64(step)) }
        return last
    }

    @Test func aFewFailuresPassAndTheNextOneHoldsTheClientBack() {
        var throttle = LoginThrottle()
        #expect(fail(&throttle, client, times: settings.allowedFailures, from: 0) == .allowed)
        #expect(throttle.verdict(for: client, now: 10) == .allowed)
        let start: Int64 = 100
        #expect(throttle.failed(client, now: start) == .heldBack(millisLeft: settings.initialHoldMillis))
        #expect(throttle.verdict(for: client, now: start + 1) == .heldBack(millisLeft: settings.initialHoldMillis - 1))
        #expect(throttle.verdict(for: client, now: start + settings.initialHoldMillis) == .allowed)
    }

    @Test func aHoldConcernsOnlyTheClientThatFailed() {
        var throttle = LoginThrottle()
        fail(&throttle, client, times: settings.allowedFailures + 1, from: 0)
        #expect(throttle.verdict(for: client, now: 10) != .allowed)
        #expect(throttle.verdict(for: neighbour, now: 10) == .allowed)
    }

    @Test func failuresSpreadWiderThanTheWindowNeverHold() {
        var throttle = LoginThrottle()
        for index in 0..<50 {
            let now = Int64(index) * (settings.windowMillis / Int64(settings.allowedFailures) + 1)
            #expect(throttle.failed(client, now: now) == .allowed)
        }
    }

    @Test func eachFurtherHoldDoublesUpToTheLongest() {
        var throttle = LoginThrottle()
        var now: Int64 = 0
        var expected = settings.initialHoldMillis
        for _ in 0..<10 {
            let verdict = fail(&throttle, client, times: settings.allowedFailures + 1, from: now)
            #expect(verdict == .heldBack(millisLeft: expected))
            now += Int64(settings.allowedFailures) + expected
            #expect(throttle.verdict(for: client, now: now) == .allowed)
            expected = min(expected * 2, settings.maximumHoldMillis)
        }
        #expect(expected == settings.maximumHoldMillis)
    }

    @Test func aClientQuietForTheLongestHoldStartsOver() {
        var throttle = LoginThrottle()
        fail(&throttle, client, times: settings.allowedFailures + 1, from: 0)
        let afterFirstHold = settings.initialHoldMillis + 10
        #expect(fail(&throttle, client, times: settings.allowedFailures + 1, from: afterFirstHold)
            == .heldBack(millisLeft: 2 * settings.initialHoldMillis))
        let secondHoldEnds = afterFirstHold + Int64(settings.allowedFailures) + 2 * settings.initialHoldMillis
        #expect(fail(&throttle, client, times: settings.allowedFailures + 1, from: secondHoldEnds + settings.maximumHoldMillis - 1)
            == .heldBack(millisLeft: 4 * settings.initialHoldMillis))
        let quietUntil = secondHoldEnds + settings.maximumHoldMillis - 1 + Int64(settings.allowedFailures)
            + 4 * settings.initialHoldMillis + settings.maximumHoldMillis
        #expect(fail(&throttle, client, times: settings.allowedFailures + 1, from: quietUntil)
            == .heldBack(millisLeft: settings.initialHoldMillis))
    }

    @Test func anIPv6ClientIsHeldBackByItsSlash64() throws {
        var throttle = LoginThrottle()
        let first = try #require(IPAddress("2001:db8:1:2::10"))
        let sameNetwork = try #require(IPAddress("2001:db8:1:2:ffff::99"))
        let otherNetwork = try #require(IPAddress("2001:db8:1:3::10"))
        fail(&throttle, first, times: settings.allowedFailures, from: 0)
        #expect(throttle.failed(sameNetwork, now: 10) == .heldBack(millisLeft: settings.initialHoldMillis))
        #expect(throttle.verdict(for: first, now: 11) != .allowed)
        #expect(throttle.verdict(for: otherNetwork, now: 11) == .allowed)
    }

    @Test func anIPv4MappedClientIsTheIPv4Client() throws {
        var throttle = LoginThrottle()
        let mapped = try #require(IPAddress("::ffff:192.0.2.10"))
        fail(&throttle, mapped, times: settings.allowedFailures + 1, from: 0)
        #expect(throttle.verdict(for: client, now: 10) != .allowed)
    }

    @Test func remembersAtMostTheBoundForgettingTheLeastRecentlyFailingClient() {
        var small = LoginThrottle.Settings()
        small.maximumClients = 3
        var throttle = LoginThrottle(settings: small)
        fail(&throttle, client, times: small.allowedFailures + 1, from: 0)
        for last in 1...3 {
            throttle.failed(IPAddress.v4(0xC633_6400 + UInt32(last)), now: 10)
        }
        #expect(throttle.count == 3)
        #expect(throttle.verdict(for: client, now: 20) == .allowed)
    }
}
