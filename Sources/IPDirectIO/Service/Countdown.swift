import Synchronization

/// Counts loops that have done something the main thread waits for (let go of their listeners,
/// finished draining). Loops count down from their own threads; the main thread polls `isDone`.
final class Countdown: Sendable {
    private let remaining: Mutex<Int>

    init(_ count: Int) { remaining = Mutex(count) }

    func arrive() { remaining.withLock { $0 -= 1 } }

    var isDone: Bool { remaining.withLock { $0 <= 0 } }

    var left: Int { remaining.withLock { max(0, $0) } }
}
