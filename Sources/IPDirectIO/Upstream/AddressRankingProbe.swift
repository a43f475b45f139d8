import IPDirectCore

/// `ipdirect resolve NAME --port P`: connects to every address of an answer at once, the way the
/// daemon's `[[upstream.probe]]` does, and ranks them the way the daemon would after those probes.
public enum AddressRankingProbe {
    /// One line per address, best first: `1 192.0.2.3:443 healthy 0.210ms`.
    public static func rank(_ addresses: [IPAddress], host: String, port: UInt16, config: Config) -> [String] {
        let base = EventBase()
        let candidates = addresses.map { SocketAddress(ip: $0, port: port) }
        var table = AddressHealthTable(settings: config.upstream.healthSettings)
        var connectors: [Connector] = []
        var pending = candidates.count
        for address in candidates {
            let started = MonotonicClock.nowMicros()
            let connector = Connector(base: base, hostPort: address.description, addresses: [address],
                                      timeoutMillis: config.proxy.connectTimeoutMs) { result in
                let now = MonotonicClock.nowMicros()
                switch result {
                case .success(let connection):
                    connection.close()
                    table.recordConnectTime(address, micros: now - started, now: now)
                    table.recordSuccess(address, now: now)
                case .failure(let error):
                    table.recordFailure(address, outcome: .error, reason: error.description, waitedMicros: 0, now: now)
                }
                pending -= 1
                if pending == 0 { base.loopBreak() }
            }
            connectors.append(connector)
        }
        guard !connectors.isEmpty else { return [] }
        for connector in connectors { connector.start() }
        if pending > 0 { base.dispatch() }
        let key = UpstreamHostKey(host: host, port: port)
        let now = MonotonicClock.nowMicros()
        _ = table.plan(for: key, candidates: candidates, mode: config.upstream.balanceMode(for: host), now: now)
        return table.rankingLines(for: key, now: now).map { "rank \($0)" }
    }
}
