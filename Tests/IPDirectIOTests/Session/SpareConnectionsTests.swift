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

    @Test func handsOutAKeptMemberThatNothingElseHolds() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        var member: Member? = Member()
        let kept = ObjectIdentifier(member!)
        spares.keep(member!)
        member = nil
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

    @Test func keepsNoMoreMembersThanItsCapacity() {
        let spares = SpareConnections<Member>(base: EventBase(), capacity: 2)
        for _ in 0..<3 { spares.keep(Member()) }
        #expect(spares.count == 2)
        #expect(spares.take() != nil && spares.take() != nil && spares.take() == nil)
    }
}
