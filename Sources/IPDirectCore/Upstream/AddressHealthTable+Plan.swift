/// What the balance modes remember of one host between its requests, and what the host taught about
/// each of its addresses.
struct HostBalanceState: Sendable {
    var mode: BalanceMode
    /// The host's addresses in the last plan's order, for `/upstreams`.
    var lastOrder: [SocketAddress] = []
    /// Advances once per plan: whose turn it is in `spread`, and which of tied addresses goes first in `fastest`.
    var turn = 0
    /// `sticky`: the address this host stays on until it fails.
    var stuckTo: SocketAddress?
    var lastUsedMicros: Int64
    /// First-byte latency and host-only failures, for the addresses of the current answer.
    var addresses: [SocketAddress: HostAddressHealth] = [:]
    /// When a plan last found the host's addresses changed from the plan before (a new answer, a hijack
    /// ending or starting); nil while they have stayed what they first were.
    var answerChangedMicros: Int64?

    init(mode: BalanceMode, lastOrder: [SocketAddress] = [], lastUsedMicros: Int64) {
        self.mode = mode
        self.lastOrder = lastOrder
        self.lastUsedMicros = lastUsedMicros
    }

    @discardableResult
    mutating func update<Result>(_ address: SocketAddress, _ change: (inout HostAddressHealth) -> Result) -> Result {
        change(&addresses[address, default: HostAddressHealth()])
    }

    func isAvoiding(_ address: SocketAddress, now: Int64) -> Bool {
        guard let until = addresses[address]?.avoidedUntilMicros else { return false }
        return until > now
    }

    /// A plan for `only`, the host's one address, was made at `now`. Changed where it lies in the table: reading
    /// the state out to compare its last order would copy all of it.
    /// Returns the plan's order: reading it out of the table afterwards would copy the whole state too.
    mutating func plannedOne(_ only: SocketAddress, mode: BalanceMode, now: Int64) -> [SocketAddress] {
        self.mode = mode
        lastUsedMicros = now
        turn &+= 1
        if lastOrder.count != 1 || lastOrder[0] != only {
            if !lastOrder.isEmpty { answerChangedMicros = now }
            lastOrder = [only]
            keepOnly(lastOrder)
        }
        return lastOrder
    }

    /// A new answer: what was learned about addresses it no longer names is dropped.
    mutating func keepOnly(_ answer: [SocketAddress]) {
        guard addresses.count > 0, addresses.keys.contains(where: { !answer.contains($0) }) else { return }
        addresses = addresses.filter { answer.contains($0.key) }
    }
}

extension AddressHealthTable {
    /// The order to race `candidates` (the resolver's answer, already filtered by policy) for `host`,
    /// and which pooled connections may be reused. Quarantined addresses (and those this host avoids)
    /// are skipped while others are healthy, and tried last (soonest-to-expire first) when none is.
    public mutating func plan(for host: UpstreamHostKey, candidates: [SocketAddress], mode: BalanceMode,
                              now: Int64) -> AddressPlan {
        if candidates.count == 1 { return plan(for: host, only: candidates[0], mode: mode, now: now) }
        var state = hosts[host] ?? HostBalanceState(mode: mode, lastUsedMicros: now)
        state.mode = mode
        state.lastUsedMicros = now
        var unique: [SocketAddress] = []
        for address in candidates where !unique.contains(address) {
            unique.append(address)
            touch(address, now: now, stamp: true)
        }
        if state.lastOrder.count != unique.count || !unique.allSatisfy(state.lastOrder.contains) {
            if !state.lastOrder.isEmpty { state.answerChangedMicros = now }
            state.keepOnly(unique)
        }
        let until = unique.map { skippedUntil($0, state: state, now: now) }
        let healthy = zip(unique, until).filter { $0.1 == nil }.map(\.0)
        let skipped = zip(unique, until).compactMap { pair in pair.1.map { (pair.0, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
        let plan: AddressPlan
        if healthy.isEmpty {
            plan = AddressPlan(order: skipped, reusable: skipped)
        } else {
            let ranked = rankHealthy(healthy, state: &state, now: now)
            let keepsIdle = state.mode == .fastest ? ranked.reusable : healthy
            plan = AddressPlan(order: AddressHealthTable.interleavingFamilies(ranked.order) + skipped,
                               reusable: ranked.reusable, keepsIdle: keepsIdle)
        }
        state.turn &+= 1
        state.lastOrder = plan.order
        if hosts[host] == nil, hosts.count >= settings.maxHosts {
            expire(now: now)
            trim(&hosts, to: settings.maxHosts - 1) { $0.lastUsedMicros }
        }
        hosts[host] = state
        return plan
    }

    /// Until when `address` is skipped (quarantined, or avoided by this host), nil when it is not.
    private func skippedUntil(_ address: SocketAddress, state: HostBalanceState, now: Int64) -> Int64? {
        let avoided = state.isAvoiding(address, now: now) ? state.addresses[address]?.avoidedUntilMicros : nil
        let quarantined = addresses[address]?.quarantinedUntilMicros
        switch (avoided, quarantined) {
        case (nil, nil): return nil
        case (let until?, nil), (nil, let until?): return until
        case (let first?, let second?): return max(first, second)
        }
    }

    /// The plan for a host with one address, `only`: nothing to rank, and the host's state is updated where it
    /// lies. The plan's lists are the host's last order, so a host that keeps its address allocates none.
    public mutating func plan(for host: UpstreamHostKey, only: SocketAddress, mode: BalanceMode, now: Int64) -> AddressPlan {
        touch(only, now: now, stamp: true)
        let order: [SocketAddress]
        if let index = hosts.index(forKey: host) {
            order = hosts.values[index].plannedOne(only, mode: mode, now: now)
        } else {
            if hosts.count >= settings.maxHosts {
                expire(now: now)
                trim(&hosts, to: settings.maxHosts - 1) { $0.lastUsedMicros }
            }
            order = [only]
            hosts[host] = HostBalanceState(mode: mode, lastOrder: order, lastUsedMicros: now)
        }
        return AddressPlan(order: order, reusable: order, keepsIdle: order)
    }

    private func rankHealthy(_ healthy: [SocketAddress], state: inout HostBalanceState,
                             now: Int64) -> (order: [SocketAddress], reusable: [SocketAddress]) {
        switch state.mode {
        case .spread:
            // A fixed order to take turns in: a provider that shuffles its answers must not skew the shares.
            let sorted = healthy.sorted(by: AddressHealthTable.addressOrder)
            let start = state.turn % sorted.count
            let order = Array(sorted[start...] + sorted[..<start])
            return (order, [order[0]])
        case .sticky:
            var order = byScore(healthy, state: state, turn: 0, now: now)
            if let stuck = state.stuckTo, let index = order.firstIndex(of: stuck) {
                order.remove(at: index)
                order.insert(stuck, at: 0)
            }
            state.stuckTo = order[0]
            return (order, [order[0]])
        case .fastest:
            let order = byScore(healthy, state: state, turn: state.turn, now: now)
            // Only what was measured sets the bar: an untried address (scored 0) must not make every
            // measured one look far worse and close its pooled connections.
            let measured = order.compactMap { score($0, state: state, now: now) }
            guard let best = measured.min() else { return (order, order) }
            let limit = AddressHealthSettings.farWorseLimit(best: best)
            let reusable = order.filter { (score($0, state: state, now: now) ?? 0) <= limit }
            return (order, reusable)
        }
    }

    /// Best score first (an untried address counts as 0, so each is explored once); addresses tied
    /// with the best take turns at the front, so equal nodes share the load.
    private func byScore(_ healthy: [SocketAddress], state: HostBalanceState, turn: Int, now: Int64) -> [SocketAddress] {
        let scored = healthy.enumerated().map {
            (index: $0.offset, address: $0.element, score: score($0.element, state: state, now: now) ?? 0)
        }
        let sorted = scored.sorted { ($0.score, $0.index) < ($1.score, $1.index) }
        let limit = AddressHealthSettings.tieLimit(best: sorted[0].score)
        let tied = sorted.prefix { $0.score <= limit }
        guard tied.count > 1 else { return sorted.map(\.address) }
        let start = turn % tied.count
        let rotated = Array(tied[start...] + tied[..<start])
        return (rotated + sorted.dropFirst(tied.count)).map(\.address)
    }

    /// Lower is better: the path's connect latency plus this host's first-byte latency on it, plus a
    /// penalty per recent failure; nil for an address never tried.
    func score(_ address: SocketAddress, state: HostBalanceState, now: Int64) -> Double? {
        let path = addresses[address]
        let firstByte = state.addresses[address]?.firstByte
        guard path?.isTried == true || firstByte != nil else { return nil }
        return (path?.connect?.cost ?? 0) + (firstByte?.cost ?? 0) + (path?.failurePenalty(now: now) ?? 0)
    }

    /// The score `address` has for `host` now, for `/upstreams` and tests.
    public func score(of address: SocketAddress, for host: UpstreamHostKey, now: Int64) -> Double? {
        score(address, state: hosts[host] ?? HostBalanceState(mode: .fastest, lastUsedMicros: now), now: now)
    }

    /// A connection to `address` carried `host`'s request: in `sticky` mode the host stays on it from now
    /// on, so when its old address failed and another won the race, it is the winner it sticks to.
    public mutating func recordUsed(_ address: SocketAddress, for host: UpstreamHostKey) {
        guard hosts[host]?.mode == .sticky else { return }
        hosts[host]?.stuckTo = address
    }

    /// A fixed order of addresses: IPv4 before IPv6, then by value and port.
    static func addressOrder(_ first: SocketAddress, _ second: SocketAddress) -> Bool {
        switch (first.ip, second.ip) {
        case (.v4(let a), .v4(let b)) where a != b: return a < b
        case (.v6(let aHigh, let aLow), .v6(let bHigh, let bLow)) where (aHigh, aLow) != (bHigh, bLow):
            return (aHigh, aLow) < (bHigh, bLow)
        case (.v4, .v6): return true
        case (.v6, .v4): return false
        default: return first.port < second.port
        }
    }

    /// RFC 8305 §4: alternate families, starting with the family of the first (best) address, so one
    /// broken family costs a single attempt delay.
    static func interleavingFamilies(_ ranked: [SocketAddress]) -> [SocketAddress] {
        guard let first = ranked.first else { return [] }
        let preferred = ranked.filter { $0.ip.isIPv6 == first.ip.isIPv6 }
        let other = ranked.filter { $0.ip.isIPv6 != first.ip.isIPv6 }
        guard !other.isEmpty else { return ranked }
        var ordered: [SocketAddress] = []
        ordered.reserveCapacity(ranked.count)
        for index in 0..<max(preferred.count, other.count) {
            if index < preferred.count { ordered.append(preferred[index]) }
            if index < other.count { ordered.append(other[index]) }
        }
        return ordered
    }
}
