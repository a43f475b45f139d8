/// The limits of the address table, from `[upstream]` and the constants below.
public struct AddressHealthSettings: Sendable, Equatable {
    /// How long the first failure of an address keeps it out; each further one doubles it.
    public var quarantineMicros: Int64
    public var quarantineMaxMicros: Int64
    /// RFC 8305 §5 "Connection Attempt Delay": an attempt that saw no answer for this long while another
    /// address connected lost the race as an unreachable node would, and is quarantined.
    public var attemptDelayMicros: Int64
    public var maxAddresses: Int
    public var maxHosts: Int
    /// Entries not named by any plan or result for this long are forgotten.
    public var expiryMicros: Int64

    public init(quarantineMicros: Int64 = 10_000_000, quarantineMaxMicros: Int64 = 300_000_000,
                attemptDelayMicros: Int64 = 250_000, maxAddresses: Int = 4096, maxHosts: Int = 4096,
                expiryMicros: Int64 = 600_000_000) {
        self.quarantineMicros = quarantineMicros
        self.quarantineMaxMicros = max(quarantineMaxMicros, quarantineMicros)
        self.attemptDelayMicros = attemptDelayMicros
        self.maxAddresses = maxAddresses
        self.maxHosts = maxHosts
        self.expiryMicros = expiryMicros
    }

    /// Scores within this of the best tie, and tied addresses share the load in `fastest` mode.
    static func tieLimit(best: Double) -> Double { best * 1.25 + 1_000 }
    /// An idle pooled connection to an address scored above this is closed rather than reused.
    static func farWorseLimit(best: Double) -> Double { best * 2 + 5_000 }
}
