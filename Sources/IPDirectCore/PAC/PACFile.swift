/// The proxy auto-config file (`/proxy.pac`) that points a browser or desktop at ipdirect: a
/// `FindProxyForURL` that answers `PROXY <this listener>` for public hosts and `DIRECT` for private
/// networks, plain host names, `localhost` and the `[pac] direct` patterns.
///
/// It never calls `dnsResolve()`: ipdirect resolves names itself (through HTTPDNS), and a PAC file that
/// resolved every host on the client would send each name to the local DNS ipdirect exists to avoid.
/// So private-network checks apply to IP literals only; a name of the local network goes DIRECT
/// through a `direct` pattern. There is no `; DIRECT` fallback: when ipdirect is down, requests fail
/// rather than silently bypassing it.
public struct PACFile: Sendable, Equatable {
    /// Netscape's media type for PAC files, which browsers and `pacparser` expect.
    public static let contentType = "application/x-ns-proxy-autoconfig"
    /// The origin-form path the proxy listener serves the file at.
    public static let path = "/proxy.pac"

    /// IPv4 networks that stay DIRECT: RFC 1918 private, loopback, link-local, shared address space.
    static let privateIPv4Networks: [(network: String, mask: String)] = [
        ("10.0.0.0", "255.0.0.0"),
        ("172.16.0.0", "255.240.0.0"),
        ("192.168.0.0", "255.255.0.0"),
        ("127.0.0.0", "255.0.0.0"),
        ("169.254.0.0", "255.255.0.0"),
        ("100.64.0.0", "255.192.0.0"),
    ]
    /// Domains that never leave the local network: RFC 6761 `localhost`, RFC 6762 `.local` (mDNS).
    static let localDomains = [".localhost", ".local"]

    /// `host:port` (IPv6 in brackets) written after `PROXY`.
    public var proxy: String
    /// `shExpMatch` patterns from `[pac] direct`, already checked to hold only host characters.
    public var direct: [String]
    /// Offer `SOCKS5` first (the listener serves SOCKS5 and HTTP on one port); a client that cannot
    /// use it takes the `PROXY` that follows.
    public var socks: Bool

    public init(proxy: SocketAddress, direct: [String], socks: Bool = false) {
        self.proxy = proxy.description
        self.direct = direct
        self.socks = socks
    }

    /// What `FindProxyForURL` answers for a host that goes through ipdirect.
    var proxyDirective: String {
        socks ? "SOCKS5 \(proxy); PROXY \(proxy)" : "PROXY \(proxy)"
    }

    /// The JavaScript text of the file.
    public var script: String {
        let patterns = direct.map { "\"\($0)\"" }.joined(separator: ", ")
        let networks = Self.privateIPv4Networks.map { "isInNet(host, \"\($0.network)\", \"\($0.mask)\")" }
            .joined(separator: "\n            || ")
        let domains = Self.localDomains.map { "dnsDomainIs(host, \"\($0)\")" }.joined(separator: " || ")
        return """
        // Proxy auto-config served by ipdirect \(IPDirectVersion.string) at \(Self.path).
        // Private networks, plain host names and localhost go DIRECT; everything else goes through
        // ipdirect, which resolves names itself, so this file never resolves a name (no dnsResolve).
        var directPatterns = [\(patterns)];

        function FindProxyForURL(url, host) {
            var proxy = "\(proxyDirective)";
            host = host.toLowerCase();
            if (host.charAt(0) == "[") {
                host = host.substring(1, host.length - 1);
            }
            for (var i = 0; i < directPatterns.length; i++) {
                if (shExpMatch(host, directPatterns[i])) {
                    return "DIRECT";
                }
            }
            if (host.indexOf(":") >= 0) {
                // IPv6 literal: loopback, unique local fc00::/7, link-local fe80::/10.
                if (host == "::1" || /^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host)) {
                    return "DIRECT";
                }
                return proxy;
            }
            if (/^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$/.test(host)) {
                if (\(networks)) {
                    return "DIRECT";
                }
                return proxy;
            }
            if (isPlainHostName(host) || host == "localhost" || \(domains)) {
                return "DIRECT";
            }
            return proxy;
        }

        """
    }
}
