/// What ipdirect learned about one upstream address (IP and port) from every connection to it.
public struct AddressHealth: Sendable, Equatable {
    /// Time to establish TCP; nil until a connection or a probe stood.
    public var connect: PeakEWMA?
    /// Time from a request sent to its response head; nil until a response came.
    public var firstByte: PeakEWMA?
    public var successes: UInt64 = 0
    public var failures: UInt64 = 0
    /// Failures since the last success: each one doubles the quarantine.
    public var consecutiveFailures = 0
    /// Recent failures, decaying with the latency estimates, for the score's penalty.
    var failureWeight: Double = 0
    var failureStampMicros: Int64 = 0
    /// Until when the address is skipped while others work; nil when it is not quarantined.
    public var quarantinedUntilMicros: Int64?
    /// A background probe is connecting to it now.
    public var probing = false
    public var lastError: String?
    /// Last time a plan named it or a result came in; entries idle for long expire.
    public var lastUsedMicros: Int64

    public init(now: Int64) {
        lastUsedMicros = now
    }

    public var isTried: Bool { connect != nil || firstByte != nil || failures > 0 }

    public func isQuarantined(now: Int64) -> Bool {
        quarantinedUntilMicros != nil
    }

    /// Lower is better: connect plus first-byte latency, plus a penalty per recent failure.
    /// nil for an address never tried, which ranks as well as the best known (it is explored once).
    public func score(now: Int64) -> Double? {
        guard isTried else { return nil }
        let latency = (connect?.cost ?? 0) + (firstByte?.cost ?? 0)
        let decay = Decay.weight(elapsed: now - failureStampMicros, over: PeakEWMA.defaultDecayMicros)
        return latency + failureWeight * decay * Double(AddressHealth.failurePenaltyMicros)
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
}
