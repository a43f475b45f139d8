/// Slows password guessing down per client: a client may fail `allowedFailures` times within
/// `windowMillis`; the failure after that holds it back for `initialHoldMillis`, and while held back its
/// checks are refused without looking at the password (a right one included, or guessing would go on at
/// cache speed). Each further hold doubles, up to `maximumHoldMillis`; a client that stays quiet that long
/// after its last failure or hold starts over. Time comes in as `now`, in milliseconds of any monotonic clock.
///
/// A client is its address, or its /64 for IPv6: one host is usually given a whole /64 and could otherwise
/// move to a fresh address for every guess. At most `maximumClients` are remembered; past that the one that
/// failed least recently is forgotten, so memory stays bounded whatever the number of addresses.
public struct LoginThrottle: Sendable {
    public struct Settings: Sendable, Equatable {
        /// A few typing mistakes pass without delay.
        public var allowedFailures = 5
        public var windowMillis: Int64 = 60_000
        /// The first hold: long enough to make guessing slow, short enough for a person who mistyped.
        public var initialHoldMillis: Int64 = 10_000
        /// The longest hold: at most a handful of guesses per ten minutes and address.
        public var maximumHoldMillis: Int64 = 600_000
        /// About 100 bytes each: a megabyte at most.
        public var maximumClients = 10_000

        public init() {}
    }

    /// What a check from a client may do now.
    public enum Verdict: Sendable, Equatable, CustomStringConvertible {
        /// The password may be checked.
        case allowed
        /// Refuse without checking, for this much longer.
        case heldBack(millisLeft: Int64)

        public var description: String {
            switch self {
            case .allowed: return "allowed"
            case .heldBack(let left): return "held_back ms_left=\(left)"
            }
        }
    }

    private struct Record: Sendable {
        /// Failures since `windowStart`.
        var failures = 0
        var windowStart: Int64
        var lastFailure: Int64
        var heldUntil: Int64 = 0
        /// The length of the next hold.
        var nextHoldMillis: Int64
    }

    public let settings: Settings
    private var records: LRUStore<IPAddress, Record>

    public init(settings: Settings = Settings()) {
        self.settings = settings
        records = LRUStore(capacity: settings.maximumClients)
    }

    /// Clients remembered now.
    public var count: Int { records.count }

    public func verdict(for client: IPAddress, now: Int64) -> Verdict {
        guard let record = records.peek(Self.key(client)), record.heldUntil > now else { return .allowed }
        return .heldBack(millisLeft: record.heldUntil - now)
    }

    /// Counts a failed check from `client`; returns `.heldBack` when this failure began a hold.
    @discardableResult
    public mutating func failed(_ client: IPAddress, now: Int64) -> Verdict {
        let key = Self.key(client)
        var record = records.peek(key) ?? Record(windowStart: now, lastFailure: now, nextHoldMillis: settings.initialHoldMillis)
        // Quiet is counted from the end of a hold: a held-back client is quiet by force.
        if now - max(record.lastFailure, record.heldUntil) >= settings.maximumHoldMillis {
            record = Record(windowStart: now, lastFailure: now, nextHoldMillis: settings.initialHoldMillis)
        }
        if now - record.windowStart >= settings.windowMillis {
            record.failures = 0
            record.windowStart = now
        }
        record.failures += 1
        record.lastFailure = now
        var verdict = Verdict.allowed
        if record.failures > settings.allowedFailures {
            record.heldUntil = now + record.nextHoldMillis
            verdict = .heldBack(millisLeft: record.nextHoldMillis)
            record.nextHoldMillis = min(record.nextHoldMillis * 2, settings.maximumHoldMillis)
            record.failures = 0
            record.windowStart = record.heldUntil
        }
        records.set(key, record)
        return verdict
    }

    /// The address a client is remembered by: IPv4 as it is (mapped ones unmapped), IPv6 by its /64.
    static func key(_ client: IPAddress) -> IPAddress {
        let interfaceIdentifierBits = 64
        let address = client.unmapped
        return address.isIPv6 ? IPPrefix.masked(address, to: interfaceIdentifierBits) : address
    }
}
