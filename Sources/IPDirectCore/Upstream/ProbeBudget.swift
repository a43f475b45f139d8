/// How many ranking probes may start, as a token bucket: `perSecond` on average, `burst` at once. Probes
/// of names nobody proxies (the DNS listener's `probe_answers`) connect to hosts no client has connected to
/// yet, so a client asking thousands of names must not turn into thousands of connections.
/// Time comes in as `now`, in microseconds of any monotonic clock.
public struct ProbeBudget: Sendable {
    public let perSecond: Int
    public let burst: Int
    private var tokens: Double
    private var refilledAt: Int64?

    public init(perSecond: Int, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = Double(burst)
    }

    /// Takes `count` probes' worth if the budget has them; all or nothing.
    public mutating func take(_ count: Int, now: Int64) -> Bool {
        let microsPerSecond = 1_000_000.0
        if let refilledAt {
            tokens = min(Double(burst), tokens + Double(now - refilledAt) / microsPerSecond * Double(perSecond))
        }
        refilledAt = now
        guard tokens >= Double(count) else { return false }
        tokens -= Double(count)
        return true
    }
}
