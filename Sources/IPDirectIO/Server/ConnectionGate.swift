import CEvent

/// The daemon-wide client connection limit, shared by all workers through one atomic counter.
final class ConnectionGate: @unchecked Sendable {
    private let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
        counter.initialize(to: 0)
    }

    deinit { counter.deallocate() }

    func tryEnter() -> Bool {
        if ipd_atomic_add(counter, 1) > limit {
            ipd_atomic_add(counter, -1)
            return false
        }
        return true
    }

    func leave() { ipd_atomic_add(counter, -1) }

    var current: Int { ipd_atomic_load(counter) }
}
