/// When to start each address of a plan (RFC 8305 §5, happy eyeballs v2): the first at once, the next
/// when the attempt delay passes without a connection or as soon as an attempt fails, every started
/// attempt kept running until one connects. The connector performs the actions; the race only decides.
public struct ConnectionRace: Sendable {
    public enum Action: Sendable, Equatable, CustomStringConvertible {
        /// Open a connection to the plan's address at this index, with its own connect timeout.
        case start(Int)
        /// Call `delayElapsed` after this many milliseconds (replaces an armed delay).
        case armDelay(millis: Int)
        /// Close this attempt unanswered: another one won.
        case abandon(Int)
        /// This attempt is the connection to use; the race is over.
        case won(Int)
        /// Every address failed; the race is over.
        case lost

        public var description: String {
            switch self {
            case .start(let index): return "start(\(index))"
            case .armDelay(let millis): return "arm_delay(\(millis))"
            case .abandon(let index): return "abandon(\(index))"
            case .won(let index): return "won(\(index))"
            case .lost: return "lost"
            }
        }
    }

    /// What each address of the plan is doing.
    enum AttemptState: Sendable, Equatable {
        /// Not started yet; next: running.
        case waiting
        /// Connecting; next: connected (won), failed, or abandoned.
        case running
        case failed
        case finished
    }

    public let delayMillis: Int
    private var attempts: [AttemptState]
    public private(set) var isOver = false

    public init(addressCount: Int, delayMillis: Int) {
        self.delayMillis = delayMillis
        attempts = Array(repeating: .waiting, count: addressCount)
    }

    /// How many attempts have been started.
    public var startedCount: Int { attempts.filter { $0 != .waiting }.count }

    public mutating func begin() -> [Action] {
        guard !attempts.isEmpty else {
            isOver = true
            return [.lost]
        }
        return startNext()
    }

    /// The attempt delay passed with no connection: the next address joins the race.
    public mutating func delayElapsed() -> [Action] {
        guard !isOver else { return [] }
        return startNext()
    }

    /// An attempt failed (refused, timed out, unreachable): the next address starts at once (§5),
    /// or the race is lost when none is left and none is running.
    public mutating func attemptFailed(_ index: Int) -> [Action] {
        guard !isOver, attempts.indices.contains(index), attempts[index] == .running else { return [] }
        attempts[index] = .failed
        if attempts.contains(.waiting) { return startNext() }
        if attempts.contains(.running) { return [] }
        isOver = true
        return [.lost]
    }

    /// An attempt connected: it wins, every other running attempt is abandoned.
    public mutating func attemptConnected(_ index: Int) -> [Action] {
        guard !isOver, attempts.indices.contains(index), attempts[index] == .running else { return [] }
        isOver = true
        var actions: [Action] = []
        for (other, state) in attempts.enumerated() where state == .running && other != index {
            attempts[other] = .finished
            actions.append(.abandon(other))
        }
        attempts[index] = .finished
        actions.append(.won(index))
        return actions
    }

    private mutating func startNext() -> [Action] {
        guard let next = attempts.firstIndex(of: .waiting) else { return [] }
        attempts[next] = .running
        var actions: [Action] = [.start(next)]
        if attempts.contains(.waiting) { actions.append(.armDelay(millis: delayMillis)) }
        return actions
    }
}
