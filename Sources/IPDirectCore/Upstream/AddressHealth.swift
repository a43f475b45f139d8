/// What ipdirect learned about the path to one upstream address (IP and port), whatever host was
/// asked of it: whether it answers, and how fast a TCP connection stands.
public struct AddressHealth: Sendable, Equatable {
    /// Time to establish TCP; nil until a connection or a probe stood, or an attempt was abandoned.
    public var connect: PeakEWMA?
    public var successes: UInt64 = 0
    public var failures: UInt64 = 0
    /// Failures since the last real success (a connection that carried a request, not a probe): each
    /// one doubles the quarantine, so an address that accepts probes but fails requests backs off too.
    public var consecutiveFailures = 0
    /// Recent failures, decaying with the latency estimates, for the score's penalty.
    var failureWeight: Double = 0
    var failureStampMicros: Int64 = 0
    /// Until when the address is skipped while others work; nil when it is not quarantined.
    public var quarantinedUntilMicros: Int64?
    /// A background probe is connecting to it now.
    public var probing = false
    public var lastError: String?
    /// Last time a plan named it: entries no plan named for `expiryMicros` expire (probes do not count).
    public var lastUsedMicros: Int64

    public init(now: Int64) {
        lastUsedMicros = now
    }

    public var isTried: Bool { connect != nil || failures > 0 }

    /// The penalty of recent failures, fading over the decay time.
    func failurePenalty(now: Int64) -> Double {
        guard failureWeight > 0 else { return 0 }
        let decay = Decay.weight(elapsed: now - failureStampMicros, over: PeakEWMA.defaultDecayMicros)
        return failureWeight * decay * Double(AddressHealth.failurePenaltyMicros)
    }

    /// What one recent failure adds to the score: more than any answer a working node gives.
    public static let failurePenaltyMicros: Int64 = 1_000_000

    mutating func recordFailure(now: Int64) {
        failures += 1
        consecutiveFailures += 1
        let decay = Decay.weight(elapsed: now - failureStampMicros, over: PeakEWMA.defaultDecayMicros)
        failureWeight = failureWeight * decay + 1
        failureStampMicros = now
    }

    mutating func observeConnect(_ micros: Int64, now: Int64) {
        if connect == nil {
            connect = PeakEWMA(firstSample: micros, now: now)
        } else {
            connect!.observe(micros, now: now)
        }
    }
}

/// What one host taught about one of its addresses: how fast the server answers that host's
/// requests, and failures that concern the host, not the path (a certificate that does not fit the
/// name, a reset before any response byte), so one host's trouble never pushes another host off a
/// shared address.
public struct HostAddressHealth: Sendable, Equatable {
    /// Time from a request sent to its response head.
    public var firstByte: PeakEWMA?
    /// Until when this host skips the address; nil when it does not.
    public var avoidedUntilMicros: Int64?
    public var consecutiveFailures = 0
    public var lastError: String?
    /// Races for this host this address won: the connection it started came first.
    public var raceWins: UInt64 = 0

    public init() {}
}
