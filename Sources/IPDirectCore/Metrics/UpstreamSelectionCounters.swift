/// How upstream addresses were chosen and tried, shared by every worker (it lives beside the address
/// table, behind the same lock). Label values are fixed sets, never addresses.
public struct UpstreamSelectionCounters: Sendable, Equatable {
    /// Connection attempts by how they ended.
    public var attempts: [UpstreamAttemptOutcome: UInt64] = [:]
    /// Races won, by the winner's position in the plan: 1, 2, 3, or 4 and beyond.
    public var raceWins: [Int: UInt64] = [:]
    /// Background probes that connected (`up`) or did not (`down`).
    public var probesUp: UInt64 = 0
    public var probesDown: UInt64 = 0
    /// Addresses quarantined now (filled in when a snapshot is taken).
    public var quarantined = 0

    /// Positions past this share the last label.
    public static let lastPositionLabel = 4

    public init() {}

    public mutating func countWin(position: Int) {
        raceWins[min(max(position, 1), Self.lastPositionLabel), default: 0] += 1
    }

    func positionLabel(_ position: Int) -> String {
        position >= Self.lastPositionLabel ? "\(Self.lastPositionLabel)+" : String(position)
    }

    func render(_ page: inout PrometheusText, prefix p: String) {
        page.family(p + "upstream_connect_attempts_total", .counter, help: "TCP connection attempts to upstream addresses, by outcome.")
        for outcome in UpstreamAttemptOutcome.allCases {
            page.sample(p + "upstream_connect_attempts_total", labels: [("outcome", outcome.rawValue)], attempts[outcome] ?? 0)
        }
        page.family(p + "upstream_race_wins_total", .counter,
                    help: "Connections won by the address at this position of the connect order (RFC 8305 racing).")
        for position in 1...Self.lastPositionLabel {
            page.sample(p + "upstream_race_wins_total", labels: [("position", positionLabel(position))], raceWins[position] ?? 0)
        }
        page.single(p + "upstream_quarantined_addresses", .gauge,
                    help: "Upstream addresses skipped now after a failure.", Int64(quarantined))
        page.family(p + "upstream_probes_total", .counter, help: "Background TCP probes of upstream addresses, by result.")
        page.sample(p + "upstream_probes_total", labels: [("outcome", "down")], probesDown)
        page.sample(p + "upstream_probes_total", labels: [("outcome", "up")], probesUp)
    }
}
