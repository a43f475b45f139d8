/// A place a host name can be resolved, tried in the configured order.
public enum ResolverSource: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The static `[hosts]` table.
    case hosts
    /// DNS over HTTPS-style HTTP lookups.
    case httpdns
    /// DNS through the system's nameservers.
    case system

    public var description: String { rawValue }
}

/// The `[resolver]` section: which sources are asked, in which order, and how system DNS is reached.
public struct ResolverSettings: Sendable, Equatable {
    /// Sources tried in turn until one answers; never empty, no duplicates.
    public var order: [ResolverSource] = [.hosts, .httpdns, .system]
    /// Empty: the nameservers of /etc/resolv.conf; otherwise exactly these.
    public var systemNameservers: [SocketAddress] = []
    /// Time to wait for one system DNS lookup.
    public var systemTimeoutMs = 5_000
    public var httpdns: [HTTPDNSProviderSettings] = []
    public var bypass: [HostPattern] = []
    public var cache = ResolverCacheSettings()
    public var preresolve: [String] = []
    public var cacheFile: String? = nil
    public var cacheWriteIntervalSeconds = 300
    public var compareSystem = false

    public init() {}
}

extension ResolverSettings {
    /// RFC 1035 §4.2: DNS servers listen on port 53.
    static let dnsPort: UInt16 = 53
    static let maximumSystemTimeoutSeconds = 300

    static var configKeys: [ConfigKey<ResolverSettings>] {
        [
            ConfigKey("order", \.order, .list(of: .choice, allowEmpty: false)),
            ConfigKey("system_nameservers", \.systemNameservers, .list(of: .nameserver, allowEmpty: true)),
            ConfigKey("system_timeout", \.systemTimeoutMs, .milliseconds(fromSecondsUpTo: maximumSystemTimeoutSeconds)),
        ]
    }
}

extension ConfigReader where Value == SocketAddress {
    /// `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53` or `[2001:db8::53]:5353`; port 53 when omitted.
    static var nameserver: ConfigReader {
        ConfigReader<String>.string.then { text in
            if let ip = IPAddress(text) { return .success(SocketAddress(ip: ip, port: ResolverSettings.dnsPort)) }
            if let address = SocketAddress(text), address.port != 0 { return .success(address) }
            return .failure("'\(text)' is not an IP address with an optional port, such as 192.0.2.53 or [2001:db8::53]:5353")
        }
    }
}

public enum HTTPDNSFormat: String, Sendable, CaseIterable, CustomStringConvertible { case doh, json, aliyun, tencent
    public var description: String { rawValue } }
public enum HTTPDNSMethod: String, Sendable, CaseIterable, CustomStringConvertible { case get, post
    public var description: String { rawValue } }
public enum CredentialSource: Sendable, Equatable, CustomStringConvertible { case file(String), environment(String)
    public var description: String { "" } }
public struct HTTPDNSURL: Sendable, Equatable {
    public var isHTTPS: Bool
    public var host: String
    public var port: UInt16
    public var authority: String
    public var path: String
}
public struct HTTPDNSProviderSettings: Sendable, Equatable {
    public var name: String
    public var format: HTTPDNSFormat
    public var url: HTTPDNSURL
    public var bootstrap: [IPAddress]
    public var caFile: String?
    public var timeoutMs: Int
    public var method: HTTPDNSMethod
    public var accountID: String?
    public var secret: CredentialSource?
    public var token: CredentialSource?
    public var keyID: String?
    public var cipher: TencentFormat.CipherAlgorithm?
}
