import Synchronization

/// The daemon-wide client connection limit, shared by all workers through one atomic counter.
final class ConnectionGate: Sendable {
    private let counter = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func tryEnter() -> Bool {
        if counter.wrappingAdd(1, ordering: .relaxed).newValue > limit {
            counter.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func leave() { counter.wrappingSubtract(1, ordering: .relaxed) }

    var current: Int { counter.load(ordering: .relaxed) }
}
