import IPDirectCore
import Testing
@testable import IPDirectIO

/// The DNS listener's last name for an address is kept for the answer's TTL, and only then, and only for the
/// client it answered: this machine's programs are one client, each other address another.
@Suite struct AnsweredNamesTests {
    static let now: Int64 = 1_000_000_000
    static let local = AnsweredNames.Asker(queryFrom: IPAddress("127.0.0.1")!)

    @Test func anAddressNamesTheLastNameAnsweredWithItWhileTheTTLLasts() {
        let names = AnsweredNames()
        let address = IPAddress("203.0.113.3")!
        names.answered(Self.local, "first.test", with: [address, IPAddress("2001:db8::3")!], ttlSeconds: 30, now: Self.now)
        #expect(names.name(for: address, askedBy: Self.local, now: Self.now + 29_000_000) == "first.test")
        #expect(names.name(for: IPAddress("2001:db8::3")!, askedBy: Self.local, now: Self.now) == "first.test")
        names.answered(Self.local, "second.test", with: [address], ttlSeconds: 30, now: Self.now + 1)
        #expect(names.name(for: address, askedBy: Self.local, now: Self.now + 2) == "second.test")
        #expect(names.name(for: address, askedBy: Self.local, now: Self.now + 1 + 30_000_000) == nil, "expired")
        #expect(names.name(for: IPAddress("::ffff:203.0.113.3")!, askedBy: Self.local, now: Self.now + 2) == "second.test")
        #expect(names.name(for: IPAddress("203.0.113.4")!, askedBy: Self.local, now: Self.now) == nil)
    }

    @Test func anAnswerWithoutTTLIsNotKept() {
        let names = AnsweredNames()
        names.answered(Self.local, "zero.test", with: [IPAddress("203.0.113.5")!], ttlSeconds: 0, now: Self.now)
        #expect(names.name(for: IPAddress("203.0.113.5")!, askedBy: Self.local, now: Self.now) == nil)
    }

    @Test func oneClientsAnswerNamesNothingForAnother() {
        let names = AnsweredNames()
        let address = IPAddress("203.0.113.6")!
        let victim = AnsweredNames.Asker(queryFrom: IPAddress("192.0.2.20")!)
        let other = AnsweredNames.Asker(queryFrom: IPAddress("192.0.2.30")!)
        names.answered(victim, "bank.test", with: [address], ttlSeconds: 60, now: Self.now)
        names.answered(other, "evil.test", with: [address, IPAddress("198.51.100.66")!], ttlSeconds: 60, now: Self.now + 1)
        #expect(names.name(for: address, askedBy: victim, now: Self.now + 2) == "bank.test")
        #expect(names.name(for: address, askedBy: other, now: Self.now + 2) == "evil.test")
        #expect(names.name(for: address, askedBy: Self.local, now: Self.now + 2) == nil)
    }

    @Test func aConnectionArrivingOnLoopbackIsThisMachinesWhateverItsSource() {
        let peer = IPAddress("10.250.9.1")!
        #expect(AnsweredNames.Asker(connectionFrom: peer, arrivedOn: IPAddress("127.0.0.1")!) == Self.local)
        #expect(AnsweredNames.Asker(connectionFrom: peer, arrivedOn: IPAddress("::1")!) == Self.local)
        #expect(AnsweredNames.Asker(queryFrom: IPAddress("::1")!) == Self.local)
        #expect(AnsweredNames.Asker(connectionFrom: peer, arrivedOn: IPAddress("10.250.9.254")!) == .remote(peer))
        #expect(AnsweredNames.Asker(queryFrom: IPAddress("::ffff:10.250.9.1")!) == .remote(peer))
    }
}
