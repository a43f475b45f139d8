/// Which pooled connections may carry a request: connections are pooled per scheme, host and port, so a
/// TLS connection verified for one name never carries another's requests. A value, not a text: asked on
/// every request, it is hashed as it is, never formatted.
public struct UpstreamPoolKey: PrehashedKey, Sendable, CustomStringConvertible {
    public var scheme: URIScheme
    /// The host and port, as what was learned about their addresses is kept.
    public var origin: UpstreamHostKey

    public init(scheme: URIScheme, host: String, port: UInt16) {
        self.init(scheme: scheme, origin: UpstreamHostKey(host: host, port: port))
    }

    public init(scheme: URIScheme, origin: UpstreamHostKey) {
        self.scheme = scheme
        self.origin = origin
    }

    public static func == (left: UpstreamPoolKey, right: UpstreamPoolKey) -> Bool {
        left.scheme == right.scheme && left.origin == right.origin
    }

    /// Not `PrehashedKeys.adding`: on top of the port's multiple, the scheme's would make `http` on one port
    /// and `https` on the one below it a single hash.
    public var prehash: Int { scheme == .https ? ~origin.prehash : origin.prehash }

    public var description: String { "\(scheme == .https ? "https" : "http")://\(origin)" }
}
