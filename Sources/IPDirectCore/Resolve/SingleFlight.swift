/// Coalesces concurrent lookups of one key into one query.
///
/// The first caller to join a key becomes the leader and starts the query; later
/// callers become followers and only wait. When the query ends, `finish` hands
/// back every waiter still registered, in the order they joined, to be answered.
/// A session that dies mid-lookup cancels its waiter and is never called back;
/// the query itself keeps running, since its answer still warms the cache.
public struct SingleFlight<Key: Hashable, Waiter> {
    /// Identifies one joined waiter, for cancelling it.
    public struct WaiterID: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt64
        public var description: String { "waiter-\(rawValue)" }
    }

    /// What a joining caller must do.
    public enum Role: Sendable, Equatable, CustomStringConvertible {
        /// No query was running: start one, then call `finish` when it ends.
        case leader
        /// A query is already running: wait to be handed the answer.
        case follower

        public var description: String {
            switch self {
            case .leader: return "leader"
            case .follower: return "follower"
            }
        }
    }

    /// The outcome of `cancel`.
    public enum Cancellation: Sendable, Equatable, CustomStringConvertible {
        /// The waiter was removed; this many remain on the key.
        case removed(remaining: Int)
        /// No such waiter: it was already finished or cancelled.
        case notWaiting

        public var description: String {
            switch self {
            case .removed(let remaining): return "removed remaining=\(remaining)"
            case .notWaiting: return "not-waiting"
            }
        }
    }

    fileprivate struct Flight {
        var waiters: [(id: WaiterID, waiter: Waiter)] = []
    }

    private var flights: [Key: Flight] = [:]
    private var lastID: UInt64 = 0

    public init() {}

    /// Registers `waiter` for `key`. Only the first caller on an idle key leads.
    public mutating func join(_ key: Key, waiter: Waiter) -> (role: Role, id: WaiterID) {
        lastID += 1
        let id = WaiterID(rawValue: lastID)
        let role: Role = flights[key] == nil ? .leader : .follower
        flights[key, default: Flight()].waiters.append((id, waiter))
        return (role, id)
    }

    /// Starts a query with nobody waiting on it, as a background refresh does.
    /// Returns `.follower` when a query for `key` is already running, in which case
    /// nothing is to be started.
    public mutating func startWithoutWaiter(_ key: Key) -> Role {
        guard flights[key] == nil else { return .follower }
        flights[key] = Flight()
        return .leader
    }

    /// Ends the query for `key` and returns its remaining waiters in join order.
    /// The key is idle afterwards, so the next `join` leads a new query.
    public mutating func finish(_ key: Key) -> [Waiter] {
        flights.removeValue(forKey: key)?.waiters.map(\.waiter) ?? []
    }

    /// Removes one waiter so it is not returned by `finish`.
    @discardableResult
    public mutating func cancel(_ key: Key, waiterID: WaiterID) -> Cancellation {
        guard var flight = flights[key],
              let position = flight.waiters.firstIndex(where: { $0.id == waiterID }) else { return .notWaiting }
        flight.waiters.remove(at: position)
        flights[key] = flight
        return .removed(remaining: flight.waiters.count)
    }

    public func isRunning(_ key: Key) -> Bool { flights[key] != nil }

    public func waiterCount(for key: Key) -> Int { flights[key]?.waiters.count ?? 0 }

    /// Keys with a query running.
    public var runningCount: Int { flights.count }
}

extension SingleFlight: Sendable where Key: Sendable, Waiter: Sendable {}
extension SingleFlight.Flight: Sendable where Key: Sendable, Waiter: Sendable {}
