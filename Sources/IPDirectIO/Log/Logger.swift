import Glibc
import IPDirectCore

/// Event and error log: one line per event on stderr, `time level message key=value...`.
/// Levels are set once at startup, before worker threads exist.
enum Logger {
    nonisolated(unsafe) static var threshold: LogLevel = .info

    static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }
    static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    /// At a level the configuration chose (a per-query line, say).
    static func log(_ level: LogLevel, _ message: @autoclosure () -> String) { write(level, message) }

    /// Whether a line at `level` is written: work done only for a line can be skipped when not.
    static func writes(_ level: LogLevel) -> Bool {
        rank(level) >= rank(threshold)
    }

    private static func write(_ level: LogLevel, _ message: () -> String) {
        guard writes(level) else { return }
        let line = "\(Timestamp.rfc3339(unixMillis: MonotonicClock.wallMillis())) \(level.rawValue) \(message())\n"
        // One write(2) per line keeps lines from different threads whole.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func rank(_ level: LogLevel) -> Int {
        switch level {
        case .debug: return 0
        case .info: return 1
        case .warning: return 2
        case .error: return 3
        }
    }
}
