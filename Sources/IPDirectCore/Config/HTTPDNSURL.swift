/// The `url` of an HTTPDNS provider, split into what the connection needs: `https://dns.google/dns-query`,
/// `http://203.107.1.1`, `https://[2001:db8::53]:8443/dns-query`, `tls://dns.alidns.com`.
///
/// Only `http` and `https` (RFC 9110 §4.2), and `tls` for DNS over TLS (RFC 7858), without userinfo,
/// which would put a credential in every log line, and without a fragment, which is never sent (RFC 3986 §3.5).
public struct HTTPDNSURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `https`: TLS with SNI and verification against `host`.
    public var isHTTPS: Bool
    /// True for `tls`: DNS messages over TLS (RFC 7858), with SNI and verification against `host`.
    public var isDoT: Bool
    /// Lower case without a trailing dot (`HostName.normalized`); an IPv6 literal without brackets.
    public var host: String
    /// The URL's port, or 443 / 80 when it names none.
    public var port: UInt16
    /// The Host header value (RFC 9110 §7.2): `host`, with `:port` when not the scheme's default,
    /// an IPv6 literal in brackets.
    public var authority: String
    /// The path and query as written, `/` when the URL has neither.
    public var path: String

    public init(isHTTPS: Bool, isDoT: Bool = false, host: String, port: UInt16, authority: String, path: String) {
        self.isHTTPS = isHTTPS
        self.isDoT = isDoT
        self.host = host
        self.port = port
        self.authority = authority
        self.path = path
    }

    /// Parses `text`; nil when it is not an http or https URL this type can hold.
    public init?(_ text: String) {
        guard case .success(let url) = Self.parse(text) else { return nil }
        self = url
    }

    /// The host as an address when the URL names one (`http://119.29.29.98/d`), so no bootstrap is needed.
    public var hostAddress: IPAddress? { IPAddress(host) }

    /// True when the URL names no path beyond `/` and no query: what an aliyun service base looks like.
    public var hasEmptyPath: Bool { path == Self.rootPath }

    /// Whether the endpoint is reached over TLS (https or tls), so a CA file or key pins apply.
    public var usesTLS: Bool { isHTTPS || isDoT }

    /// The URL in its normal form: `https://dns.google/dns-query`, `tls://dns.alidns.com`.
    public var description: String {
        if isDoT { return Self.tlsPrefix + authority + (hasEmptyPath ? "" : path) }
        return (isHTTPS ? Self.httpsPrefix : Self.httpPrefix) + authority + path
    }
}

extension HTTPDNSURL {
    static let httpsPrefix = "https://"
    static let httpPrefix = "http://"
    static let tlsPrefix = "tls://"
    /// RFC 7858 §3.1: DNS over TLS listens on TCP 853 unless agreed otherwise.
    static let dotPort: UInt16 = 853
    /// RFC 9110 §4.2.2: the default port of https.
    static let httpsPort: UInt16 = 443
    /// RFC 9110 §4.2.1: the default port of http.
    static let httpPort: UInt16 = 80
    /// RFC 9112 §3.2.1: an empty path is sent as "/".
    static let rootPath = "/"

    /// The URL `text` spells, or why it is not one ipdirect can query.
    static func parse(_ text: String) -> Result<HTTPDNSURL, ConfigRejection> {
        if text.unicodeScalars.contains(where: { !$0.isASCII || $0.value <= 0x20 || $0.value == 0x7F }) {
            return .failure("\(LogQuote.singleQuoted(text)) contains spaces, control or non-ASCII characters; percent-encode them")
        }
        var isHTTPS = false
        var isDoT = false
        let rest: Substring
        let lowered = text.lowercased()
        if lowered.hasPrefix(httpsPrefix) {
            isHTTPS = true
            rest = text.dropFirst(httpsPrefix.count)
        } else if lowered.hasPrefix(httpPrefix) {
            rest = text.dropFirst(httpPrefix.count)
        } else if lowered.hasPrefix(tlsPrefix) {
            isDoT = true
            rest = text.dropFirst(tlsPrefix.count)
        } else {
            return .failure("\(LogQuote.singleQuoted(text)) is not an http://, https:// or tls:// URL")
        }
        if rest.contains("#") {
            return .failure("\(LogQuote.singleQuoted(text)) has a fragment (#...), which is never sent to the server; remove it")
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authorityText = rest[..<authorityEnd]
        if authorityText.contains("@") {
            return .failure("\(LogQuote.singleQuoted(text)) has userinfo (user@); put credentials in secret_file, secret_env, token_file or token_env")
        }
        let defaultPort = isDoT ? dotPort : isHTTPS ? httpsPort : httpPort
        let host: String
        let port: UInt16
        switch hostAndPort(authorityText, defaultPort: defaultPort) {
        case .success(let parsed): (host, port) = parsed
        case .failure(let reason): return .failure("\(LogQuote.singleQuoted(text)): \(reason.message)")
        }
        let isIPv6 = host.contains(":")
        let bracketed = isIPv6 ? "[\(host)]" : host
        let authority = port == defaultPort ? bracketed : "\(bracketed):\(port)"
        var path = String(rest[authorityEnd...])
        if !path.hasPrefix("/") { path = rootPath + path }
        // RFC 7858 has no paths: a DNS-over-TLS server is a host and a port.
        if isDoT && path != rootPath {
            return .failure("\(LogQuote.singleQuoted(text)) has a path or query; a DNS-over-TLS URL is tls://host or tls://host:port")
        }
        return .success(HTTPDNSURL(isHTTPS: isHTTPS, isDoT: isDoT, host: host, port: port, authority: authority, path: path))
    }

    /// `dns.google`, `dns.google:8443`, `203.107.1.1` or `[2001:db8::53]:8443`.
    private static func hostAndPort(_ authority: Substring, defaultPort: UInt16) -> Result<(String, UInt16), ConfigRejection> {
        var hostText = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure("'[' without ']'") }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure("unexpected \(LogQuote.singleQuoted(after)) after ']'") }
                portText = after.dropFirst()
            }
            guard let ip = IPAddress(hostText), ip.isIPv6 else {
                return .failure("\(LogQuote.singleQuoted(hostText)) is not an IPv6 address (no zone)")
            }
            return port(portText, defaultPort: defaultPort).map { ("\(ip)", $0) }
        }
        if let colon = authority.firstIndex(of: ":") {
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            if portText!.contains(":") { return .failure("write an IPv6 address in brackets, as in https://[2001:db8::53]/dns-query") }
        }
        if hostText.isEmpty { return .failure("the URL has no host") }
        let host: String
        if let ip = IPAddress(hostText) {
            host = "\(ip)"
        } else {
            switch HostName.normalize(String(hostText)) {
            case .success(let name): host = HostName.normalized(name)
            case .failure(let reason): return .failure(reason)
            }
        }
        return port(portText, defaultPort: defaultPort).map { (host, $0) }
    }

    private static func port(_ text: Substring?, defaultPort: UInt16) -> Result<UInt16, ConfigRejection> {
        guard let text else { return .success(defaultPort) }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let number = UInt16(text), number >= 1
        else { return .failure("\(LogQuote.singleQuoted(text)) is not a port (1-\(UInt16.max))") }
        return .success(number)
    }
}
