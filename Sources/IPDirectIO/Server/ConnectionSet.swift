/// An object a `ConnectionSet` can hold: it keeps its own place in the set.
protocol ConnectionSetMember: AnyObject {
    /// Where the member sits in the one set that holds it; -1 when in none.
    var connectionSetSlot: Int { get set }
}

/// The connections of one loop of one kind (sessions, silent clients): added and removed once per
/// connection, and listed only to drain or close them. Each member keeps its slot, so adding and removing
/// cost no hashing (a dictionary keyed by object identity hashed twice per connection); removal moves the
/// last member into the freed slot.
struct ConnectionSet<Member: ConnectionSetMember> {
    private var members: [Member] = []

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }
    /// A copy, so that members may leave while the caller goes through it.
    var all: [Member] { members }

    /// The member in `slot` (0 ..< count), the `forEach` order.
    func member(at slot: Int) -> Member { members[slot] }

    /// Each member in turn, without a copy of the set: `body` must not add or remove members.
    func forEach(_ body: (Member) -> Void) {
        for member in members { body(member) }
    }

    mutating func insert(_ member: Member) {
        guard !contains(member) else { return }
        member.connectionSetSlot = members.count
        members.append(member)
    }

    func contains(_ member: Member) -> Bool {
        let slot = member.connectionSetSlot
        return slot >= 0 && slot < members.count && members[slot] === member
    }

    /// False when `member` was not in the set.
    @discardableResult
    mutating func remove(_ member: Member) -> Bool {
        take(member) != nil
    }

    /// Removes `member` and hands the set's reference to it over to the caller, who may be keeping it
    /// elsewhere: the set must not be its last holder in between (a session's callbacks borrow it). Nil when
    /// `member` was not in the set.
    mutating func take(_ member: Member) -> Member? {
        guard contains(member) else { return nil }
        let slot = member.connectionSetSlot
        member.connectionSetSlot = -1
        var taken = members.removeLast()
        if slot < members.count {
            swap(&taken, &members[slot])
            members[slot].connectionSetSlot = slot
        }
        return taken
    }
}
