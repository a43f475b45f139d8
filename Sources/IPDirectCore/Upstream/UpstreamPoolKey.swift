/// Which pooled connections may carry a request: connections are pooled per scheme, host and port, so a
/// TLS connection verified for one name never carries another's requests. A value, not a text: asked on
/// every request, it is hashed as it is, never formatted.
public struct UpstreamPoolKey: Hashable, Sendable, CustomStringConvertible {
    public var scheme: URIScheme
    public var host: String
    public var port: UInt16

    public init(scheme: URIScheme, host: String, port: UInt16) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    public var description: String { "\(scheme == .https ? "https" : "http")://\(host):\(port)" }
}
