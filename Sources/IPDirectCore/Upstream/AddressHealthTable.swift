/// What ipdirect learned about every upstream address, shared by all workers (behind a lock in IO),
/// and the per-host state the balance modes keep. Bounded: the least recently used entries go first,
/// and entries no plan named for `expiryMicros` expire. Every method takes `now` (monotonic microseconds).
public struct AddressHealthTable: Sendable {
    public var settings: AddressHealthSettings
    public private(set) var addresses: [SocketAddress: AddressHealth] = [:]
    var hosts: [UpstreamHostKey: HostBalanceState] = [:]

    public init(settings: AddressHealthSettings = AddressHealthSettings()) {
        self.settings = settings
    }

    public var quarantinedCount: Int { addresses.values.reduce(0) { $0 + ($1.quarantinedUntilMicros == nil ? 0 : 1) } }

    public func health(of address: SocketAddress) -> AddressHealth? { addresses[address] }

    public func health(of address: SocketAddress, for host: UpstreamHostKey) -> HostAddressHealth? {
        hosts[host]?.addresses[address]
    }

    // MARK: - Results of connections

    /// TCP stood after `micros`: a sample of the path's latency. It ends nothing by itself; for TLS the
    /// handshake still has to succeed.
    public mutating func recordConnectTime(_ address: SocketAddress, micros: Int64, now: Int64) {
        let slot = touch(address, now: now, stamp: false)
        addresses.values[slot].observeConnect(micros, now: now)
    }

    /// A connection to the address is usable (TCP, and TLS where it is spoken): the back-off starts
    /// over and a quarantine ends. Returns true when one did.
    @discardableResult
    public mutating func recordSuccess(_ address: SocketAddress, now: Int64) -> Bool {
        let slot = touch(address, now: now, stamp: false)
        return AddressHealthTable.update(&addresses.values[slot]) { entry in
            entry.successes += 1
            entry.consecutiveFailures = 0
            entry.probing = false
            let recovered = entry.quarantinedUntilMicros != nil
            entry.quarantinedUntilMicros = nil
            return recovered
        }
    }

    /// A response head for `host` came `micros` after the request was sent: the host's latency on this
    /// address, and proof the host works there (its own back-off starts over).
    public mutating func recordFirstByte(_ address: SocketAddress, for host: UpstreamHostKey, micros: Int64, now: Int64) {
        guard let slot = hosts.index(forKey: host) else { return }
        hosts.values[slot].update(address) { entry in
            if entry.firstByte == nil {
                entry.firstByte = PeakEWMA(firstSample: micros, now: now)
            } else {
                entry.firstByte!.observe(micros, now: now)
            }
            entry.consecutiveFailures = 0
            entry.avoidedUntilMicros = nil
        }
    }

    /// A race of `host`'s addresses was won by `address`.
    public mutating func recordRaceWin(_ address: SocketAddress, for host: UpstreamHostKey) {
        guard let slot = hosts.index(forKey: host) else { return }
        hosts.values[slot].update(address) { $0.raceWins += 1 }
    }

    /// Mutates a stored entry where it lies (no copy of the entry in and out of the dictionary).
    @discardableResult
    static func update<Result>(_ entry: inout AddressHealth, _ change: (inout AddressHealth) -> Result) -> Result {
        change(&entry)
    }

    /// An attempt failed on the path (refused, timed out, unreachable, TLS handshake broken, or
    /// abandoned); returns how long the address is now quarantined for (nil: it is not).
    /// `waitedMicros` is how long the attempt ran: an abandoned attempt counts as at least that slow,
    /// and is quarantined only when it waited a whole attempt delay without an answer.
    @discardableResult
    public mutating func recordFailure(_ address: SocketAddress, outcome: UpstreamAttemptOutcome, reason: String,
                                       waitedMicros: Int64, now: Int64) -> Int64? {
        let slot = touch(address, now: now, stamp: false)
        if outcome == .abandoned, waitedMicros > 0 {
            if addresses.values[slot].connect == nil {
                addresses.values[slot].connect = PeakEWMA(firstSample: waitedMicros, now: now)
            } else {
                addresses.values[slot].connect!.raise(to: waitedMicros, now: now)
            }
        }
        let quarantines = outcome.quarantines
            && (outcome != .abandoned || waitedMicros >= settings.attemptDelayMicros)
        guard quarantines else { return nil }
        return quarantine(slot, reason: reason, now: now)
    }

    private mutating func quarantine(_ slot: [SocketAddress: AddressHealth].Index, reason: String, now: Int64) -> Int64 {
        let settings = settings
        return AddressHealthTable.update(&addresses.values[slot]) { entry in
            entry.recordFailure(now: now)
            entry.lastError = reason
            let length = AddressHealthTable.quarantineLength(afterFailures: entry.consecutiveFailures, settings)
            entry.quarantinedUntilMicros = now + length
            entry.probing = false
            return length
        }
    }

    /// A failure that concerns `host` only (its certificate, a reset before any response byte): this
    /// host skips the address for a back-off that doubles like a quarantine; other hosts on the same
    /// address are not affected. Returns the length.
    @discardableResult
    public mutating func recordHostFailure(_ address: SocketAddress, for host: UpstreamHostKey, reason: String,
                                           now: Int64) -> Int64? {
        guard let slot = hosts.index(forKey: host) else { return nil }
        let settings = settings
        return hosts.values[slot].update(address) { entry in
            entry.consecutiveFailures += 1
            entry.lastError = reason
            let length = AddressHealthTable.quarantineLength(afterFailures: entry.consecutiveFailures, settings)
            entry.avoidedUntilMicros = now + length
            return length
        }
    }

    static func quarantineLength(afterFailures count: Int, _ settings: AddressHealthSettings) -> Int64 {
        var length = settings.quarantineMicros
        for _ in 1..<max(count, 1) where length < settings.quarantineMaxMicros { length *= 2 }
        return min(length, settings.quarantineMaxMicros)
    }

    // MARK: - Probes

    /// Quarantined addresses whose back-off has run out and that no probe is trying yet, now marked
    /// probing. Addresses no plan named within `expiryMicros` are left to expire instead.
    public mutating func takeDueProbes(now: Int64) -> [SocketAddress] {
        var due: [SocketAddress] = []
        let horizon = now - settings.expiryMicros
        for (address, entry) in addresses where !entry.probing && entry.lastUsedMicros >= horizon {
            guard let until = entry.quarantinedUntilMicros, until <= now else { continue }
            addresses[address]!.probing = true
            due.append(address)
        }
        return due.sorted { $0.description < $1.description }
    }

    /// A probe connected after `micros`: the quarantine ends, but the back-off is not forgotten until a
    /// connection carries a request again. Returns true when a quarantine ended.
    @discardableResult
    public mutating func probeSucceeded(_ address: SocketAddress, micros: Int64, now: Int64) -> Bool {
        guard let slot = addresses.index(forKey: address) else { return false }
        return AddressHealthTable.update(&addresses.values[slot]) { entry in
            entry.observeConnect(micros, now: now)
            entry.probing = false
            let recovered = entry.quarantinedUntilMicros != nil
            entry.quarantinedUntilMicros = nil
            return recovered
        }
    }

    /// A probe failed: quarantined again, for twice as long (up to `quarantineMaxMicros`).
    @discardableResult
    public mutating func probeFailed(_ address: SocketAddress, reason: String, now: Int64) -> Int64? {
        guard let slot = addresses.index(forKey: address) else { return nil }
        return quarantine(slot, reason: reason, now: now)
    }

    /// Marks addresses of a new answer as being probed; returns those not already known or probing.
    public mutating func takeUnknown(_ candidates: [SocketAddress], now: Int64) -> [SocketAddress] {
        var taken: [SocketAddress] = []
        for address in candidates {
            let slot = touch(address, now: now, stamp: true)
            guard !addresses.values[slot].isTried, !addresses.values[slot].probing else { continue }
            addresses.values[slot].probing = true
            taken.append(address)
        }
        return taken
    }

    // MARK: - Upkeep

    /// The network changed: what was learned about paths no longer holds.
    public mutating func forgetAll() {
        addresses.removeAll()
        hosts.removeAll()
    }

    /// Hosts named by a plan within the expiry window, most recently used first, at most `limit`.
    public func recentHosts(limit: Int) -> [String] {
        var seen = Set<String>()
        return hosts.sorted { $0.value.lastUsedMicros > $1.value.lastUsedMicros }
            .compactMap { seen.insert($0.key.host).inserted ? $0.key.host : nil }
            .prefix(limit).map { $0 }
    }

    /// Drops entries unused for `expiryMicros`, and the least recently used beyond the size limits.
    public mutating func expire(now: Int64) {
        let horizon = now - settings.expiryMicros
        addresses = addresses.filter { $0.value.lastUsedMicros >= horizon || $0.value.probing }
        hosts = hosts.filter { $0.value.lastUsedMicros >= horizon }
        trim(&addresses, to: settings.maxAddresses) { $0.lastUsedMicros }
        trim(&hosts, to: settings.maxHosts) { $0.lastUsedMicros }
    }

    /// Removes the least recently used entries down to `limit`, and then a tenth more, so a full table
    /// is not sorted again for every new entry.
    func trim<Key, Value>(_ table: inout [Key: Value], to limit: Int, stamp: (Value) -> Int64) {
        guard table.count > limit else { return }
        let target = max(0, limit - limit / AddressHealthTable.trimSlackDivisor)
        let oldest = table.sorted { stamp($0.value) < stamp($1.value) }.prefix(table.count - target)
        for (key, _) in oldest { table[key] = nil }
    }

    /// A full table trims a tenth beyond its limit.
    static let trimSlackDivisor = 10

    /// Makes sure `address` has an entry (making room within `maxAddresses`) and returns where it lies,
    /// so the caller hashes the address once. `stamp`: a plan named it now (probes and results do not
    /// keep an address alive that no answer names any more).
    @discardableResult
    mutating func touch(_ address: SocketAddress, now: Int64, stamp: Bool) -> [SocketAddress: AddressHealth].Index {
        if let index = addresses.index(forKey: address) {
            if stamp, addresses.values[index].lastUsedMicros < now { addresses.values[index].lastUsedMicros = now }
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
