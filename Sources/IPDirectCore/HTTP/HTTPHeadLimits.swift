/// Bounds on a message head, so a slow or hostile peer cannot make the proxy buffer or scan without end.
public struct HTTPHeadLimits: Sendable {
    /// The whole head, including the start line and the final CRLF CRLF.
    public var maxHeadBytes: Int
    /// Field lines in the head.
    public var maxFieldCount: Int

    /// 32 KiB of head: above what browsers send with large cookies, far below what hurts memory.
    public static let defaultMaxHeadBytes = 32 * 1024
    /// 128 field lines: browsers send about 20.
    public static let defaultMaxFieldCount = 128

    public init(maxHeadBytes: Int = defaultMaxHeadBytes, maxFieldCount: Int = defaultMaxFieldCount) {
        self.maxHeadBytes = maxHeadBytes
        self.maxFieldCount = maxFieldCount
    }
}
