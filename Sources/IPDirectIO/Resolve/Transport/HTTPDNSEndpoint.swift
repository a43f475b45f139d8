import IPDirectCore

/// One HTTPDNS endpoint: the URL's host is used for Host / :authority, SNI and certificate
/// verification; the TCP connection goes to one of the bootstrap addresses, never to a DNS lookup.
struct HTTPDNSEndpoint: Equatable, CustomStringConvertible {
    var isHTTPS: Bool
    /// URL host, lower case; IPv6 without brackets.
    var host: String
    var port: UInt16
    /// What goes in Host / :authority, e.g. "doh.test:8443" or "[::1]:8443".
    var authority: String

    init(isHTTPS: Bool, host: String, port: UInt16, authority: String) {
        self.isHTTPS = isHTTPS
        self.host = host
        self.port = port
        self.authority = authority
    }

    /// The endpoint for `host` and `port`, with the authority written the way RFC 3986 §3.2.2 wants it:
    /// IPv6 literals in brackets, the port left out when it is the scheme's default (RFC 9110 §4.2).
    init(isHTTPS: Bool, host: String, port: UInt16) {
        let name = HostName.normalized(host)
        let hostPart = name.contains(":") ? "[\(name)]" : name
        let defaultPort: UInt16 = isHTTPS ? HTTPDNSEndpoint.defaultHTTPSPort : HTTPDNSEndpoint.defaultHTTPPort
        self.init(isHTTPS: isHTTPS, host: name, port: port,
                  authority: port == defaultPort ? hostPart : "\(hostPart):\(port)")
    }

    /// RFC 9110 §4.2.2.
    static let defaultHTTPSPort: UInt16 = 443
    /// RFC 9110 §4.2.1.
    static let defaultHTTPPort: UInt16 = 80

    var scheme: String { isHTTPS ? "https" : "http" }

    var description: String { "\(scheme)://\(authority)" }
}
