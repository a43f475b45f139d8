/// How closed admin connections are logged without a flood flooding the log: a connection refused on
/// accept costs its sender almost nothing, so thousands a second can come. Each closure may be written at
/// debug; at warning, one line per reason per window, carrying how many more were closed for that reason
/// since the previous warning line.
public struct AdminClosureLog: Sendable {
    /// The level and what the line carries.
    public enum Line: Sendable, Equatable {
        /// `suppressed`: closures of this reason since the last warning line, written only at debug.
        case warning(suppressed: Int)
        case debug
    }

    /// At most one warning line per reason this often.
    public static let windowMicros: Int64 = 10_000_000

    private var lastWarningMicros: [AdminClosure: Int64] = [:]
    private var suppressed: [AdminClosure: Int] = [:]

    public init() {}

    public mutating func note(_ reason: AdminClosure, now: Int64) -> Line {
        guard reason.isWorthAWarning else { return .debug }
        if let last = lastWarningMicros[reason], now - last < Self.windowMicros {
            suppressed[reason, default: 0] += 1
            return .debug
        }
        lastWarningMicros[reason] = now
        let count = suppressed.removeValue(forKey: reason) ?? 0
        return .warning(suppressed: count)
    }
}
