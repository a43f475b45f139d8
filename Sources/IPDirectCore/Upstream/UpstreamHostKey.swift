/// One host's port, the key of per-host balance state: `example.com:443`.
public struct UpstreamHostKey: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
