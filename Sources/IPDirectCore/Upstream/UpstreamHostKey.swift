/// One host's port, the key of per-host balance state: `example.com:443`. The host's hash is taken once, when
/// the key is made (`HashedHostName`): a request looks its key up several times (the pool on the way out and
/// back, the address table for the plan and for what it learned).
public struct UpstreamHostKey: PrehashedKey, Sendable, CustomStringConvertible {
    public let name: HashedHostName
    public let port: UInt16

    public init(host: String, port: UInt16) {
        self.init(name: HashedHostName(host), port: port)
    }

    public init(name: HashedHostName, port: UInt16) {
        self.name = name
        self.port = port
    }

    public var host: String { name.text }

    /// "-" and port 0: a request that names no upstream. Made once, as every connection starts with one.
    public static let nowhere = UpstreamHostKey(host: "-", port: 0)

    public static func == (left: UpstreamHostKey, right: UpstreamHostKey) -> Bool {
        left.port == right.port && left.name == right.name
    }

    public var prehash: Int { PrehashedKeys.adding(Int(port), to: name.textHash) }

    public var description: String { "\(host):\(port)" }
}
