/// How much the daemon writes to stderr; each level includes the ones above it in severity.
public enum LogLevel: String, Sendable, Equatable, Comparable, CaseIterable, CustomStringConvertible {
    case debug, info, warning, error

    /// Ordered by severity, so `level >= configured` decides whether a line is written.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    private var severity: Int {
        switch self {
        case .debug: return 0
        case .info: return 1
        case .warning: return 2
        case .error: return 3
        }
    }

    public var description: String { rawValue }
}
