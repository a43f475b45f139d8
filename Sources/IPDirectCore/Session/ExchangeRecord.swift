/// What the access-log line and the metrics of one exchange report besides the request itself: where
/// its addresses came from, which upstream carried it, how it ended, how long its steps took and how
/// many bytes it moved. The machine keeps one for the exchange in flight and hands a copy over in its
/// `log` action.
public struct ExchangeRecord: Sendable, Equatable {
    public var source = "-"
    public var cacheAgeMillis: Int64?
    public var upstreamAddress = "-"
    public var status = 0
    public var note = ""
    /// When the lookup or the connect began, and when the whole request had been handed upstream.
    public var resolveStartMicros: Int64 = 0
    public var connectStartMicros: Int64 = 0
    public var requestSentMicros: Int64?
    public var resolveMicros: Int64 = 0
    public var connectMicros: Int64 = 0
    /// From the request head to the final (or 101) response head.
    public var firstByteMicros: Int64?
    public var bytesFromClient: UInt64 = 0
    public var bytesToClient: UInt64 = 0
    /// Connection attempts started for this exchange (0 when a pooled connection carried it).
    public var connectAttempts = 0
    /// 1-based position of the address used in the plan's order, nil when none was used.
    public var addressRank: Int?
    /// Whether a lookup / connect ended (either way), so its duration goes into the histogram.
    public var resolveFinished = false
    public var connectFinished = false

    public init(bytesFromClient: UInt64 = 0) {
        self.bytesFromClient = bytesFromClient
    }
}
