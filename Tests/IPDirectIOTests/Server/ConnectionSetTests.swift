import Testing
@testable import IPDirectIO

@Suite struct ConnectionSetTests {
    final class Member: ConnectionSetMember {
        var connectionSetSlot = -1
    }

    @Test func membersComeAndGoInAnyOrder() {
        var set = ConnectionSet<Member>()
        let members = (0..<5).map { _ in Member() }
        for member in members { set.insert(member) }
        #expect(set.count == 5)
        let removed = [set.remove(members[1]), set.remove(members[4]), set.remove(members[0])]
        #expect(removed == [true, true, true])
        #expect(set.count == 2)
        #expect(!set.contains(members[0]) && !set.contains(members[1]) && !set.contains(members[4]))
        #expect(set.contains(members[2]) && set.contains(members[3]))
        #expect(Set(set.all.map(ObjectIdentifier.init)) == Set([members[2], members[3]].map(ObjectIdentifier.init)))
        let rest = [set.remove(members[3]), set.remove(members[2])]
        #expect(rest == [true, true])
        #expect(set.isEmpty)
    }

    /// `take` hands over the set's own reference: the member is not freed between leaving the set and being kept
    /// elsewhere, and the members left keep their slots right.
    @Test func takingAMemberHandsOverTheSetsReference() {
        var set = ConnectionSet<Member>()
        weak var watched: Member?
        do {
            let members = (0..<3).map { _ in Member() }
            for member in members { set.insert(member) }
            watched = members[0]
        }
        let taken = set.take(watched!)
        #expect(taken != nil && taken === watched)
        #expect(taken?.connectionSetSlot == -1)
        #expect(set.count == 2 && set.take(taken!) == nil)
        for slot in 0..<set.count { #expect(set.member(at: slot).connectionSetSlot == slot) }
        withExtendedLifetime(taken) {}
    }

    @Test func removingWhatIsNotThereChangesNothing() {
        var set = ConnectionSet<Member>()
        let inside = Member()
        let outside = Member()
        set.insert(inside)
        let removed = [set.remove(outside), set.remove(inside), set.remove(inside)]
        #expect(removed == [false, true, false])
        #expect(set.isEmpty)
    }

    @Test func aMemberOfAnotherSetIsNotTakenForOne() {
        var first = ConnectionSet<Member>()
        var second = ConnectionSet<Member>()
        let a = Member()
        let b = Member()
        first.insert(a)
        second.insert(b)
        // Both sit in slot 0 of their own set.
        #expect(!first.contains(b))
        let removed = first.remove(b)
        #expect(!removed)
        #expect(first.contains(a) && second.contains(b))
    }

    @Test func addingTwiceKeepsOneEntry() {
        var set = ConnectionSet<Member>()
        let member = Member()
        set.insert(member)
        set.insert(member)
        #expect(set.count == 1)
    }

    @Test func theListIsACopyThatMembersMayLeaveWhileItIsWalked() {
        var set = ConnectionSet<Member>()
        let members = (0..<4).map { _ in Member() }
        for member in members { set.insert(member) }
        for member in set.all { set.remove(member) }
        #expect(set.isEmpty)
    }
}
