/// What `/upstreams` shows of one address.
public enum AddressState: String, Sendable, CustomStringConvertible {
    case healthy
    case quarantined
    /// Quarantined, and a background TCP probe is connecting to it now.
    case probing
    /// Known from an answer but never connected to.
    case untried

    public var description: String { rawValue }
}

extension AddressHealthTable {
    /// The address's state on its path, whatever host asks.
    public func state(of address: SocketAddress) -> AddressState {
        guard let entry = addresses[address] else { return .untried }
        if entry.quarantinedUntilMicros != nil { return entry.probing ? .probing : .quarantined }
        return entry.isTried ? .healthy : .untried
    }

    /// The address's state for `host`: quarantined also while this host avoids it.
    public func state(of address: SocketAddress, for host: UpstreamHostKey, now: Int64) -> AddressState {
        let onPath = state(of: address)
        if onPath == .healthy || onPath == .untried, hosts[host]?.isAvoiding(address, now: now) == true { return .quarantined }
        if onPath == .untried, hosts[host]?.addresses[address]?.firstByte != nil { return .healthy }
        return onPath
    }

    /// `GET /upstreams`: every host with its addresses in the order the last plan gave them.
    public func upstreamsJSON(now: Int64) -> String {
        let rows = hosts.sorted { ($0.key.host, $0.key.port) < ($1.key.host, $1.key.port) }.map { key, state in
            JSONText.object([
                ("host", JSONText.quoted(key.host)),
                ("port", String(key.port)),
                ("balance", JSONText.quoted(state.mode.rawValue)),
                ("answer_changed_s", state.answerChangedMicros.map { String(max(0, now - $0) / 1_000_000) } ?? "null"),
                ("addresses", JSONText.array(state.lastOrder.enumerated().map {
                    addressJSON($0.element, rank: $0.offset + 1, host: key, state: state, now: now)
                })),
            ])
        }
        return JSONText.object([
            ("hosts", JSONText.array(rows)),
            ("addresses_known", String(addresses.count)),
            ("quarantined", String(quarantinedCount)),
        ]) + "\n"
    }

    private func addressJSON(_ address: SocketAddress, rank: Int, host: UpstreamHostKey, state: HostBalanceState,
                             now: Int64) -> String {
        let entry = addresses[address]
        let onHost = state.addresses[address]
        func millis(_ micros: Double?) -> String {
            guard let micros else { return "null" }
            return AddressHealthTable.millisText(micros)
        }
        let avoidedUntil = state.isAvoiding(address, now: now) ? onHost?.avoidedUntilMicros : nil
        let until = [entry?.quarantinedUntilMicros, avoidedUntil].compactMap { $0 }.max()
        let lastError = avoidedUntil != nil ? onHost?.lastError : (entry?.lastError ?? onHost?.lastError)
        return JSONText.object([
            ("address", JSONText.quoted(address.ip.description)),
            ("port", String(address.port)),
            ("rank", String(rank)),
            ("state", JSONText.quoted(self.state(of: address, for: host, now: now).rawValue)),
            ("score_ms", millis(score(address, state: state, now: now))),
            ("connect_ms", millis(entry?.connect?.cost)),
            ("first_byte_ms", millis(onHost?.firstByte?.cost)),
            ("successes", String(entry?.successes ?? 0)),
            ("failures", String(entry?.failures ?? 0)),
            ("race_wins", String(onHost?.raceWins ?? 0)),
            ("quarantined_until_ms", until.map { String(max(0, ($0 - now) / 1000)) } ?? "null"),
            ("last_error", lastError.map(JSONText.quoted) ?? "null"),
        ])
    }

    /// Microseconds as milliseconds with three decimals, without Foundation's formatting.
    static func millisText(_ micros: Double) -> String {
        let whole = Int64(micros)
        let fraction = whole % 1000
        let padded = String(fraction)
        return "\(whole / 1000)." + String(repeating: "0", count: 3 - padded.count) + padded
    }

    /// The ranking of one host for `ipdirect resolve` and logs: `1 192.0.2.3:80 healthy 1.250ms`.
    public func rankingLines(for host: UpstreamHostKey, now: Int64) -> [String] {
        guard let state = hosts[host] else { return [] }
        return state.lastOrder.enumerated().map { index, address in
            let score = self.score(address, state: state, now: now).map { AddressHealthTable.millisText($0) + "ms" } ?? "-"
            return "\(index + 1) \(address) \(self.state(of: address, for: host, now: now)) \(score)"
        }
    }
}
