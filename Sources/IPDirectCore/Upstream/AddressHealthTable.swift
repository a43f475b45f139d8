/// What ipdirect learned about every upstream address, shared by all workers (behind a lock in IO),
/// and the per-host state the balance modes keep. Bounded: the least recently used entries go first,
/// and entries unused for `expiryMicros` expire. Every method takes `now` (monotonic microseconds).
public struct AddressHealthTable: Sendable {
    public var settings: AddressHealthSettings
    public private(set) var addresses: [SocketAddress: AddressHealth] = [:]
    var hosts: [UpstreamHostKey: HostBalanceState] = [:]

    public init(settings: AddressHealthSettings = AddressHealthSettings()) {
        self.settings = settings
    }

    public var quarantinedCount: Int { addresses.values.reduce(0) { $0 + ($1.quarantinedUntilMicros == nil ? 0 : 1) } }

    public func health(of address: SocketAddress) -> AddressHealth? { addresses[address] }

    // MARK: - Results

    /// TCP connected in `micros` (a request's connection or a probe's): the address works.
    /// Returns true when this ended a quarantine.
    @discardableResult
    public mutating func recordConnected(_ address: SocketAddress, micros: Int64, now: Int64) -> Bool {
        let slot = touch(address, now: now)
        return AddressHealthTable.update(&addresses.values[slot]) { entry in
            if entry.connect == nil {
                entry.connect = PeakEWMA(firstSample: micros, now: now)
            } else {
                entry.connect!.observe(micros, now: now)
            }
            entry.successes += 1
            entry.consecutiveFailures = 0
            entry.probing = false
            let recovered = entry.quarantinedUntilMicros != nil
            entry.quarantinedUntilMicros = nil
            return recovered
        }
    }

    /// A response head came `micros` after the request was sent.
    public mutating func recordFirstByte(_ address: SocketAddress, micros: Int64, now: Int64) {
        let slot = touch(address, now: now)
        AddressHealthTable.update(&addresses.values[slot]) { entry in
            if entry.firstByte == nil {
                entry.firstByte = PeakEWMA(firstSample: micros, now: now)
            } else {
                entry.firstByte!.observe(micros, now: now)
            }
        }
    }

    /// Mutates a stored entry where it lies (no copy of the entry in and out of the dictionary).
    @discardableResult
    static func update<Result>(_ entry: inout AddressHealth, _ change: (inout AddressHealth) -> Result) -> Result {
        change(&entry)
    }

    /// An attempt failed; returns how long the address is now quarantined for (nil: it is not).
    /// `waitedMicros` is how long the attempt ran: an abandoned attempt counts as at least that slow,
    /// and is quarantined only when it waited a whole attempt delay without an answer.
    @discardableResult
    public mutating func recordFailure(_ address: SocketAddress, outcome: UpstreamAttemptOutcome, reason: String,
                                       waitedMicros: Int64, now: Int64) -> Int64? {
        var entry = entry(for: address, now: now)
        if waitedMicros > 0 {
            if entry.connect == nil {
                entry.connect = PeakEWMA(firstSample: waitedMicros, now: now)
            } else {
                entry.connect!.observe(waitedMicros, now: now)
            }
        }
        let quarantines = outcome.quarantines
            && (outcome != .abandoned || waitedMicros >= settings.attemptDelayMicros)
        guard quarantines else {
            addresses[address] = entry
            return nil
        }
        entry.recordFailure(now: now)
        entry.lastError = reason
        let length = quarantineLength(afterFailures: entry.consecutiveFailures)
        entry.quarantinedUntilMicros = now + length
        entry.probing = false
        addresses[address] = entry
        return length
    }

    private func quarantineLength(afterFailures count: Int) -> Int64 {
        var length = settings.quarantineMicros
        for _ in 1..<max(count, 1) where length < settings.quarantineMaxMicros { length *= 2 }
        return min(length, settings.quarantineMaxMicros)
    }

    // MARK: - Probes

    /// Quarantined addresses whose back-off has run out and that no probe is trying yet, now marked probing.
    public mutating func takeDueProbes(now: Int64) -> [SocketAddress] {
        var due: [SocketAddress] = []
        for (address, entry) in addresses where !entry.probing {
            guard let until = entry.quarantinedUntilMicros, until <= now else { continue }
            addresses[address]!.probing = true
            due.append(address)
        }
        return due.sorted { $0.description < $1.description }
    }

    /// A probe connected: the quarantine ends. Returns true when one did.
    @discardableResult
    public mutating func probeSucceeded(_ address: SocketAddress, micros: Int64, now: Int64) -> Bool {
        recordConnected(address, micros: micros, now: now)
    }

    /// A probe failed: quarantined again, for twice as long (up to `quarantineMaxMicros`).
    @discardableResult
    public mutating func probeFailed(_ address: SocketAddress, reason: String, now: Int64) -> Int64? {
        recordFailure(address, outcome: .error, reason: reason, waitedMicros: 0, now: now)
    }

    /// Marks addresses of a new answer as being probed; returns those not already known or probing.
    public mutating func takeUnknown(_ candidates: [SocketAddress], now: Int64) -> [SocketAddress] {
        var taken: [SocketAddress] = []
        for address in candidates {
            let entry = entry(for: address, now: now)
            guard !entry.isTried, !entry.probing else { continue }
            addresses[address]!.probing = true
            taken.append(address)
        }
        return taken
    }

    /// A probe of a new answer's address ended without connecting: quarantined like a failed attempt.
    public mutating func rankingProbeFailed(_ address: SocketAddress, reason: String, now: Int64) -> Int64? {
        recordFailure(address, outcome: .error, reason: reason, waitedMicros: 0, now: now)
    }

    // MARK: - Upkeep

    /// The network changed: what was learned about paths no longer holds.
    public mutating func forgetAll() {
        addresses.removeAll()
        hosts.removeAll()
    }

    /// Drops entries unused for `expiryMicros`, and the least recently used beyond the size limits.
    public mutating func expire(now: Int64) {
        let horizon = now - settings.expiryMicros
        addresses = addresses.filter { $0.value.lastUsedMicros >= horizon || $0.value.probing }
        hosts = hosts.filter { $0.value.lastUsedMicros >= horizon }
        trim(&addresses, to: settings.maxAddresses) { $0.lastUsedMicros }
        trim(&hosts, to: settings.maxHosts) { $0.lastUsedMicros }
    }

    func trim<Key, Value>(_ table: inout [Key: Value], to limit: Int, stamp: (Value) -> Int64) {
        guard table.count > limit else { return }
        let oldest = table.sorted { stamp($0.value) < stamp($1.value) }.prefix(table.count - limit)
        for (key, _) in oldest { table[key] = nil }
    }

    mutating func entry(for address: SocketAddress, now: Int64) -> AddressHealth {
        addresses.values[touch(address, now: now)]
    }

    /// Makes sure `address` has an entry (making room within `maxAddresses`), stamps it used now, and
    /// returns where it lies, so the caller hashes the address once.
    @discardableResult
    mutating func touch(_ address: SocketAddress, now: Int64) -> [SocketAddress: AddressHealth].Index {
        if let index = addresses.index(forKey: address) {
            if addresses.values[index].lastUsedMicros < now { addresses.values[index].lastUsedMicros = now }
            return index
        }
        if addresses.count >= settings.maxAddresses {
            expire(now: now)
            trim(&addresses, to: settings.maxAddresses - 1) { $0.lastUsedMicros }
        }
        addresses[address] = AddressHealth(now: now)
        return addresses.index(forKey: address)!
    }
}
