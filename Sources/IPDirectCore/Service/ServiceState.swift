/// A state a daemon reports to its service manager, written as the newline-separated `KEY=VALUE`
/// datagram of the sd_notify(3) protocol.
public enum ServiceState: Sendable, Equatable, CustomStringConvertible {
    /// Listeners are open and the workers run: start-up (or a reload) is complete.
    case ready(status: String)
    /// A reload has begun; `monotonicMicros` is CLOCK_MONOTONIC now, which Type=notify-reload requires.
    case reloading(monotonicMicros: Int64)
    /// Shutting down: no new connections, in-flight work draining.
    case stopping(status: String)
    /// The main loop is healthy (sent every half `WATCHDOG_USEC`).
    case watchdog
    /// Free-form status line shown by `systemctl status`.
    case status(String)

    /// The datagram's text.
    public var message: String {
        switch self {
        case .ready(let status): return "READY=1\nSTATUS=\(Self.oneLine(status))"
        case .reloading(let micros): return "RELOADING=1\nMONOTONIC_USEC=\(micros)"
        case .stopping(let status): return "STOPPING=1\nSTATUS=\(Self.oneLine(status))"
        case .watchdog: return "WATCHDOG=1"
        case .status(let status): return "STATUS=\(Self.oneLine(status))"
        }
    }

    public var description: String {
        switch self {
        case .ready: return "ready"
        case .reloading: return "reloading"
        case .stopping: return "stopping"
        case .watchdog: return "watchdog"
        case .status: return "status"
        }
    }

    /// A newline would start a new assignment in the datagram.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
