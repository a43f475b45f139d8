/// What the balance modes remember of one host between its requests.
struct HostBalanceState: Sendable {
    var mode: BalanceMode
    /// The host's addresses in the last plan's order, for `/upstreams`.
    var lastOrder: [SocketAddress] = []
    /// Advances once per plan: whose turn it is in `spread`, and which of tied addresses goes first in `fastest`.
    var turn = 0
    /// `sticky`: the address this host stays on until it fails.
    var stuckTo: SocketAddress?
    var lastUsedMicros: Int64
}

extension AddressHealthTable {
    /// The order to race `candidates` (the resolver's answer, already filtered by policy) for `host`,
    /// and which pooled connections may be reused. Quarantined addresses are skipped while others
    /// are healthy, and tried last (soonest-to-expire first) when none is.
    public mutating func plan(for host: UpstreamHostKey, candidates: [SocketAddress], mode: BalanceMode,
                              now: Int64) -> AddressPlan {
        if candidates.count == 1 { return planForOneAddress(host, candidates, mode: mode, now: now) }
        var state = hosts[host] ?? HostBalanceState(mode: mode, lastUsedMicros: now)
        state.mode = mode
        state.lastUsedMicros = now
        var unique: [SocketAddress] = []
        for address in candidates where !unique.contains(address) {
            unique.append(address)
            touch(address, now: now)
        }
        let healthy = unique.filter { addresses[$0]?.quarantinedUntilMicros == nil }
        let quarantined = unique.filter { addresses[$0]?.quarantinedUntilMicros != nil }
            .sorted { (addresses[$0]?.quarantinedUntilMicros ?? 0) < (addresses[$1]?.quarantinedUntilMicros ?? 0) }
        let plan: AddressPlan
        if healthy.isEmpty {
            plan = AddressPlan(order: quarantined, reusable: quarantined)
        } else {
            let ranked = rankHealthy(healthy, state: &state, now: now)
            let keepsIdle = state.mode == .fastest ? ranked.reusable : healthy
            plan = AddressPlan(order: AddressHealthTable.interleavingFamilies(ranked.order) + quarantined,
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

    /// Most hosts have one address: nothing to rank, and the host's state is updated where it lies.
    private mutating func planForOneAddress(_ host: UpstreamHostKey, _ only: [SocketAddress], mode: BalanceMode,
                                            now: Int64) -> AddressPlan {
        touch(only[0], now: now)
        if let index = hosts.index(forKey: host) {
            hosts.values[index].mode = mode
            hosts.values[index].lastUsedMicros = now
            hosts.values[index].turn &+= 1
            if hosts.values[index].lastOrder != only { hosts.values[index].lastOrder = only }
        } else {
            if hosts.count >= settings.maxHosts {
                expire(now: now)
                trim(&hosts, to: settings.maxHosts - 1) { $0.lastUsedMicros }
            }
            hosts[host] = HostBalanceState(mode: mode, lastOrder: only, lastUsedMicros: now)
        }
        return AddressPlan(order: only, reusable: only, keepsIdle: only)
    }

    private func rankHealthy(_ healthy: [SocketAddress], state: inout HostBalanceState,
                             now: Int64) -> (order: [SocketAddress], reusable: [SocketAddress]) {
        switch state.mode {
        case .spread:
            let start = state.turn % healthy.count
            let order = Array(healthy[start...] + healthy[..<start])
            return (order, [order[0]])
        case .sticky:
            var order = byScore(healthy, turn: 0, now: now)
            if let stuck = state.stuckTo, let index = order.firstIndex(of: stuck) {
                order.remove(at: index)
                order.insert(stuck, at: 0)
            }
            state.stuckTo = order[0]
            return (order, [order[0]])
        case .fastest:
            let order = byScore(healthy, turn: state.turn, now: now)
            let best = score(order[0], now: now)
            let reusable = order.filter { score($0, now: now) <= AddressHealthSettings.farWorseLimit(best: best) }
            return (order, reusable)
        }
    }

    /// Best score first (an untried address counts as 0, so each is explored once); addresses tied
    /// with the best take turns at the front, so equal nodes share the load.
    private func byScore(_ healthy: [SocketAddress], turn: Int, now: Int64) -> [SocketAddress] {
        let scored = healthy.enumerated().map { (index: $0.offset, address: $0.element, score: score($0.element, now: now)) }
        let sorted = scored.sorted { ($0.score, $0.index) < ($1.score, $1.index) }
        let limit = AddressHealthSettings.tieLimit(best: sorted[0].score)
        let tied = sorted.prefix { $0.score <= limit }
        guard tied.count > 1 else { return sorted.map(\.address) }
        let start = turn % tied.count
        let rotated = Array(tied[start...] + tied[..<start])
        return (rotated + sorted.dropFirst(tied.count)).map(\.address)
    }

    /// A connection to `address` carried `host`'s request: in `sticky` mode the host stays on it from now
    /// on, so when its old address failed and another won the race, it is the winner it sticks to.
    public mutating func recordUsed(_ address: SocketAddress, for host: UpstreamHostKey) {
        guard hosts[host]?.mode == .sticky else { return }
        hosts[host]?.stuckTo = address
    }

    func score(_ address: SocketAddress, now: Int64) -> Double {
        addresses[address]?.score(now: now) ?? 0
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
