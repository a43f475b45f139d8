import Testing
@testable import IPDirectCore

/// Per-address and total caps on the admin listener's connections.
@Suite struct AdminConnectionLimitsTests {
    static let loopback = IPAddress("127.0.0.1")!
    static let otherLoopback = IPAddress("127.0.0.2")!

    @Test func refusesAnAddressOverItsShareWhileAnotherIsAdmitted() {
        var limits = AdminConnectionLimits(perClient: 2, total: 64)
        #expect(limits.admit(Self.loopback) == nil)
        #expect(limits.admit(Self.loopback) == nil)
        #expect(limits.admit(Self.loopback) == .perClientLimit)
        #expect(limits.admit(Self.otherLoopback) == nil)
        #expect(limits.openCount == 3)
    }

    @Test func aClosedConnectionGivesItsSlotBack() {
        var limits = AdminConnectionLimits(perClient: 1, total: 64)
        #expect(limits.admit(Self.loopback) == nil)
        #expect(limits.admit(Self.loopback) == .perClientLimit)
        limits.release(Self.loopback)
        #expect(limits.admit(Self.loopback) == nil)
        #expect(limits.openCount == 1)
    }

    @Test func theTotalCapHoldsWhateverTheAddresses() {
        var limits = AdminConnectionLimits(perClient: 2, total: 3)
        let addresses = ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"].compactMap { IPAddress($0) }
        #expect(addresses.map { limits.admit($0) } == [nil, nil, nil, .connectionLimit])
        #expect(limits.admit(nil) == .connectionLimit)
    }

    /// A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d: still the same client.
    @Test func countsAMappedAddressAsTheIPv4AddressItStandsFor() {
        var limits = AdminConnectionLimits(perClient: 1, total: 64)
        #expect(limits.admit(Self.loopback) == nil)
        #expect(limits.admit(IPAddress("::ffff:127.0.0.1")) == .perClientLimit)
    }

    @Test func countsIPv6ClientsByWholeAddress() {
        var limits = AdminConnectionLimits(perClient: 1, total: 64)
        #expect(limits.admit(IPAddress("::1")) == nil)
        #expect(limits.admit(IPAddress("::1")) == .perClientLimit)
        #expect(limits.admit(IPAddress("::2")) == nil)
    }

    @Test func anUnknownPeerCountsOnlyTowardsTheTotal() {
        var limits = AdminConnectionLimits(perClient: 1, total: 64)
        #expect(limits.admit(nil) == nil)
        #expect(limits.admit(nil) == nil)
        limits.release(nil)
        #expect(limits.openCount == 1)
    }

    @Test func theRefusalNamesTheLimitItRanInto() {
        let limits = AdminConnectionLimits(perClient: 16, total: 64)
        #expect(limits.limit(for: .perClientLimit) == 16)
        #expect(limits.limit(for: .connectionLimit) == 64)
        let refusal = limits.refusal(.perClientLimit)
        #expect(refusal.status == 503)
        #expect(refusal.body.contains("at most 16"))
        #expect(limits.refusal(.connectionLimit).body.contains("at most 64"))
    }
}
