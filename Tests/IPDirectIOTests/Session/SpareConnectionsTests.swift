import Testing
@testable import IPDirectIO

/// Objects kept by `SpareConnections` are handed out again only when nothing else holds them, strongly or
/// through an unowned capture such as a pending lookup's completion, and only as many are kept as it holds.
@Suite struct SpareConnectionsTests {
    final class Member {}

    /// Work in flight that calls back the member it was started for, as a lookup's completion does.
    final class PendingWork {
        var completion: (() -> Void)?
    }

    /// Keeps a new member that nothing else holds; returns which it is.
    private func keepUnheld(in spares: SpareConnections<Member>) -> ObjectIdentifier {
        let member = Member()
        spares.keep(member)
        return ObjectIdentifier(member)
    }

    @Test func handsOutAKeptMemberThatNothingElseHolds() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        let kept = keepUnheld(in: spares)
        #expect(spares.take().map(ObjectIdentifier.init) == kept)
        #expect(spares.count == 0)
    }

    @Test func doesNotHandOutAMemberStillHeldElsewhere() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        let held = Member()
        spares.keep(held)
        #expect(spares.take() == nil)
        #expect(spares.count == 0, "let go rather than kept: it goes when its holder lets go")
    }

    @Test func doesNotHandOutAMemberThatPendingWorkCapturedUnowned() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        let work = PendingWork()
        do {
            let member = Member()
            work.completion = { [unowned member] in _ = member }
            spares.keep(member)
        }
        #expect(spares.take() == nil)
        work.completion = nil
    }

    @Test func doesNotHandOutAMemberThatIsNotIdle() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        let busy = keepUnheld(in: spares)
        #expect(spares.take(where: { ObjectIdentifier($0) != busy }) == nil)
        #expect(spares.count == 0)
    }

    /// A member let go of in a callback of its own (its connection ended with no room to keep it) lives until the
    /// loop's turn ends; one that is not idle when taken is let go of the same way.
    @Test func aMemberLetGoOfLivesUntilTheTurnEnds() {
        let base = EventBase()
        let spares = SpareConnections<Counted>(base: base, capacity: 1)
        var freed = 0
        var freedDuringTurn = -1
        let timer = Timer(base: base)
        timer.action = {
            spares.keep(Counted { freed += 1 })
            spares.keep(Counted { freed += 1 })
            _ = spares.take(where: { _ in false })
            freedDuringTurn = freed
        }
        timer.schedule(afterMillis: 0)
        base.dispatch()
        #expect(freedDuringTurn == 0)
        #expect(freed == 2)
        #expect(spares.count == 0)
    }

    final class Counted {
        let freed: () -> Void
        init(freed: @escaping () -> Void) { self.freed = freed }
        deinit { freed() }
    }

    @Test func keepsNoMoreMembersThanItsCapacity() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        for _ in 0..<3 { spares.keep(Member()) }
        #expect(spares.count == 2)
        #expect(spares.take() != nil && spares.take() != nil && spares.take() == nil)
    }
}
