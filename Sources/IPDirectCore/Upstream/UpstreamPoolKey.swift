/// Which pooled connections may carry a request: connections are pooled per scheme, host and port, so a
/// TLS connection verified for one name never carries another's requests. A value, not a text: asked on
/// every request, it is hashed as it is, never formatted.
public struct UpstreamPoolKey: Hashable, Sendable, CustomStringConvertible {
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

    public var description: String { "\(scheme == .https ? "https" : "http")://\(origin)" }
}
