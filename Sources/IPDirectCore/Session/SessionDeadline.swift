/// The one inactivity deadline a client session runs at a time. It is re-armed lazily: activity only
/// stamps the time, and when the timer fires early the deadline asks for the rest of the window
/// instead of every read resetting a timer.
public struct SessionDeadline: Sendable, Equatable {
    public enum Reason: String, Sendable, Equatable, CustomStringConvertible {
        /// A request has begun and its head is not complete.
        case header = "header_timeout"
        /// Between requests on a keep-alive connection, or while a request body streams in.
        case clientIdle = "client_idle_timeout"
        /// No bytes in either direction of a tunnel.
        case tunnelIdle = "tunnel_idle_timeout"
        /// A redirected connection's first bytes have not named where it goes (`[transparent] sniff_timeout`).
        case sniff = "sniff_timeout"

        public var description: String { rawValue }
    }

    /// What the timer firing means.
    public enum Check: Sendable, Equatable {
        case unarmed
        /// Activity moved the deadline: fire again after this many milliseconds.
        case pending(millis: Int)
        case expired(Reason)
    }

    public private(set) var reason: Reason?
    private var limitMicros: Int64 = 0
    private var lastActivityMicros: Int64 = 0

    public init() {}

    mutating func arm(_ reason: Reason, millis: Int, now: Int64) -> SessionAction {
        self.reason = reason
        limitMicros = Int64(millis) * 1000
        lastActivityMicros = now
        return .armTimer(millis: millis)
    }

    mutating func cancel() -> SessionAction {
        reason = nil
        limitMicros = 0
        return .cancelTimer
    }

    mutating func noteActivity(now: Int64) {
        lastActivityMicros = now
    }

    /// Restarts the whole window from `now`, keeping the reason.
    mutating func restart(now: Int64) -> SessionAction {
        lastActivityMicros = now
        return .armTimer(millis: Int(limitMicros / 1000))
    }

    func check(now: Int64) -> Check {
        guard let reason else { return .unarmed }
        let idle = now - lastActivityMicros
        if idle < limitMicros { return .pending(millis: Int((limitMicros - idle) / 1000) + 1) }
        return .expired(reason)
    }
}
