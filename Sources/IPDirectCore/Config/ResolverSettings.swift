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

/// The `[resolver]` section: which sources are asked, in which order, how system DNS and the
/// HTTPDNS providers are reached, and how answers are cached.
public struct ResolverSettings: Sendable, Equatable {
    /// Sources tried in turn until one answers; never empty, no duplicates. `httpdns` with no
    /// providers is allowed and then skipped.
    public var order: [ResolverSource] = [.hosts, .httpdns, .system]
    /// Empty: the nameservers of /etc/resolv.conf; otherwise exactly these.
    public var systemNameservers: [SocketAddress] = []
    /// Time to wait for one system DNS lookup.
    public var systemTimeoutMs = 5_000
    /// From `[[resolver.httpdns]]`: the providers, tried in the order listed; names are unique.
    /// A file without such tables has none (`Config.builtIn` has two).
    public var httpdns: [HTTPDNSProviderSettings] = []
    /// Names that skip HTTPDNS and go to the next source (`*.local`, `intranet.example`); no ports.
    public var bypass: [HostPattern] = []
    /// Keys `min_ttl`, `max_ttl`, `negative_ttl`, `serve_stale` (whole seconds) and `max_entries`;
    /// `minTTL <= maxTTL` always holds for a parsed file.
    public var cache = ResolverCacheSettings()
    /// Host names (lower case, no trailing dot) resolved at startup and kept warm.
    public var preresolve: [String] = []
    /// Where the cache is saved and loaded from (absolute, or relative to the working directory); nil: nowhere.
    public var cacheFile: String?
    /// Seconds between periodic saves of `cacheFile`.
    public var cacheWriteIntervalSeconds = 300
    /// Whether the system resolver is asked alongside HTTPDNS and disagreements logged (hijack detection).
    public var compareSystem = false

    public init() {}
}

extension ResolverSettings {
    /// RFC 1035 §4.2: DNS servers listen on port 53.
    static let dnsPort: UInt16 = 53
    static let maximumSystemTimeoutSeconds = 300

    static let sectionName = "resolver"
    static let minTTLKey = "min_ttl"
    static let maxTTLKey = "max_ttl"
    /// RFC 2181 §8: a TTL is at most 2^31 - 1 seconds.
    static let maximumTTLSeconds: UInt32 = 2_147_483_647
    /// Ten million entries of a few hundred bytes is a few GB: beyond that is a typo.
    static let maxEntriesRange = 1...10_000_000
    /// More often than every ten seconds only wears the disk; less than daily loses a day of answers.
    static let cacheWriteIntervalRange = 10...86_400

    static var configKeys: [ConfigKey<ResolverSettings>] {
        [
            ConfigKey("order", \.order, .list(of: .choice, allowEmpty: false)),
            ConfigKey("system_nameservers", \.systemNameservers, .oneOrList(of: .nameserver, allowEmpty: true, expected: "an address or an array of addresses")),
            ConfigKey("system_timeout", \.systemTimeoutMs, .milliseconds(fromSecondsUpTo: maximumSystemTimeoutSeconds)),
            ConfigKey("bypass", \.bypass, .list(of: .hostPatternWithoutPort, allowEmpty: true)),
            ConfigKey(minTTLKey, \.cache.minTTL, .wholeSeconds(in: 0...maximumTTLSeconds)),
            ConfigKey(maxTTLKey, \.cache.maxTTL, .wholeSeconds(in: 1...maximumTTLSeconds)),
            ConfigKey("negative_ttl", \.cache.negativeTTL, .wholeSeconds(in: 0...maximumTTLSeconds)),
            ConfigKey("serve_stale", \.cache.serveStale, .wholeSeconds(in: 0...maximumTTLSeconds)),
            ConfigKey("max_entries", \.cache.maxEntries, .integer(in: maxEntriesRange)),
            ConfigKey("preresolve", \.preresolve, .list(of: .exactHostName, allowEmpty: true)),
            ConfigKey("cache_file", \.cacheFile, .nonEmptyText),
            ConfigKey("cache_write_interval", \.cacheWriteIntervalSeconds, .integer(in: cacheWriteIntervalRange)),
            ConfigKey("compare_system", \.compareSystem, .boolean),
            ConfigKey("httpdns", \.httpdns, .httpdnsProviders),
        ]
    }

    /// The keys, then the one rule that spans two of them: answers cannot be kept at least
    /// `min_ttl` and at most `max_ttl` when the minimum is larger. Reported, never silently raised.
    static var section: ConfigSection {
        let keyed = ConfigSection.keyed(sectionName, \.resolver, keys: configKeys)
        return ConfigSection(name: sectionName) { table, config in
            var diagnostics = keyed.apply(table, &config)
            // A refused key has its own diagnostic and left its default in place: compare nothing then.
            let refused = diagnostics.contains { $0.message.hasPrefix(minTTLKey + ":") || $0.message.hasPrefix(maxTTLKey + ":") }
            let cache = config.resolver.cache
            guard !refused, cache.minTTL > cache.maxTTL else { return diagnostics }
            let lines = (min: table.entries.first { $0.key == minTTLKey }?.line, max: table.entries.first { $0.key == maxTTLKey }?.line)
            switch lines {
            case (let minLine?, let maxLine?):
                diagnostics.append(ConfigDiagnostic(
                    line: maxLine, message: "\(maxTTLKey): \(cache.maxTTL) is less than \(minTTLKey) (\(cache.minTTL) on line \(minLine))"))
            case (nil, let maxLine?):
                diagnostics.append(ConfigDiagnostic(
                    line: maxLine, message: "\(maxTTLKey): \(cache.maxTTL) is less than \(minTTLKey) (\(cache.minTTL), the default)"))
            case (let minLine?, nil):
                diagnostics.append(ConfigDiagnostic(
                    line: minLine, message: "\(minTTLKey): \(cache.minTTL) is more than \(maxTTLKey) (\(cache.maxTTL), the default)"))
            case (nil, nil):
                break
            }
            return diagnostics
        }
    }
}

extension ConfigReader where Value == UInt32 {
    /// A whole number of seconds within `range`, such as a TTL.
    static func wholeSeconds(in range: ClosedRange<UInt32>) -> ConfigReader {
        ConfigReader<Int>.integer(in: Int(range.lowerBound)...Int(range.upperBound)).then { .success(UInt32($0)) }
    }
}

extension ConfigReader where Value == HostPattern {
    /// `intranet.example` or `*.local`: names, never ports, since a lookup has no port.
    static var hostPatternWithoutPort: ConfigReader {
        hostPattern.then { pattern in
            if pattern.port != nil { return .failure("\(LogQuote.singleQuoted(pattern)): name hosts without a port") }
            return .success(pattern)
        }
    }
}

extension ConfigReader where Value == SocketAddress {
    /// `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53` or `[2001:db8::53]:5353`; port 53 when omitted.
    static var nameserver: ConfigReader {
        ConfigReader<String>.string.then { text in
            if let ip = IPAddress(text) { return .success(SocketAddress(ip: ip, port: ResolverSettings.dnsPort)) }
            if let address = SocketAddress(text), address.port != 0 { return .success(address) }
            return .failure("\(LogQuote.singleQuoted(text)) is not an IP address with an optional port, such as 192.0.2.53 or [2001:db8::53]:5353")
        }
    }
}
