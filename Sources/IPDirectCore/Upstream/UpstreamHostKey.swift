/// One host's port, the key of per-host balance state: `example.com:443`. The host's hash is taken once, when
/// the key is made: a request looks its key up several times (the pool on the way out and back, the address
/// table for the plan and for what it learned), and hashing the name each time cost more than the lookups.
public struct UpstreamHostKey: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    private let hostHash: Int

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
        hostHash = host.hashValue
    }

    /// "-" and port 0: a request that names no upstream. Made once, as every connection starts with one.
    public static let nowhere = UpstreamHostKey(host: "-", port: 0)

    public static func == (left: UpstreamHostKey, right: UpstreamHostKey) -> Bool {
        left.hostHash == right.hostHash && left.port == right.port && left.host == right.host
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hostHash)
        hasher.combine(port)
    }

    public var description: String { "\(host):\(port)" }
}
