/// Session objects of one loop whose connection ended (`ClientSession`, `SilentClient`), kept for the next
/// connections instead of being freed: a new one allocates the object and its storage and makes its event,
/// and freeing it releases every field, most of what a new connection costs beyond a keep-alive request. At
/// most `capacity` are kept, so the memory held at rest is bounded whatever the number of connections was.
///
/// A kept object is handed out only when nothing else holds it, strongly or through an `unowned` capture: a
/// lookup, login check or connect in flight still holding the session it was started for could otherwise
/// answer the connection it serves next. It is checked when it is taken, not when it is kept: the frames of
/// the call that ended its connection still run on it then.
final class SpareConnections<Member: AnyObject> {
    let capacity: Int
    /// Held so the loop outlives the events of the members kept, which they free when they go.
    private let base: EventBase
    private var spares: [Member] = []

    init(base: EventBase, capacity: Int) {
        self.base = base
        self.capacity = capacity
        spares.reserveCapacity(capacity)
    }

    deinit {
        // Before the base: each member frees its events as it goes.
        spares.removeAll()
    }

    /// How many are kept now.
    var count: Int { spares.count }

    /// Keeps `member`, whose connection has ended, when there is room; otherwise it goes when the loop's turn
    /// ends (`EventBase.retire(_:)`): this is where a session is let go of, in its own callbacks.
    func keep(_ member: consuming Member) {
        guard spares.count < capacity else { return base.retire(consume member) }
        spares.append(consume member)
    }

    /// A kept member that nothing else holds, for the caller to reopen; nil when none is. `isIdle` says whether
    /// no call runs on it that holds no reference of its own (a borrowed callback, `ClientSession.borrowed`).
    /// Members still held elsewhere, or not idle, are let go: they are freed once their last holder lets go of
    /// them, and not before the loop's turn ends.
    func take(where isIdle: (Member) -> Bool = { _ in true }) -> Member? {
        while var member = spares.popLast() {
            // Nothing counted holds it: no strong reference but this one, and no unowned one (every object
            // counts one for its strong references together).
            if isKnownUniquelyReferenced(&member) && _getUnownedRetainCount(member) == 1 && isIdle(member) {
                return member
            }
            base.retire(member)
        }
        return nil
    }
}
