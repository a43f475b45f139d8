/// Where an upstream address came from; printed in access logs and by `ipdirect resolve`.
public enum ResolutionSource: Sendable, Equatable, CustomStringConvertible {
    /// The request named an IP address; nothing was looked up.
    case literal
    /// A `[hosts]` entry of the config.
    case hosts
    /// The system resolver (evdns with /etc/resolv.conf or `system_nameservers`).
    case system
    /// The `[[resolver.httpdns]]` provider of this name.
    case httpdns(String)

    /// The name the resolver cache stores with an answer.
    public var cacheLabel: String {
        switch self {
        case .literal: return "literal"
        case .hosts: return "hosts"
        case .system: return "system"
        case .httpdns(let provider): return provider
        }
    }

    /// Reads back `cacheLabel`; provider names may not be `system`, `hosts` or `literal` (the config refuses them).
    public init(cacheLabel: String) {
        switch cacheLabel {
        case "system": self = .system
        case "hosts": self = .hosts
        case "literal": self = .literal
        default: self = .httpdns(cacheLabel)
        }
    }

    public var description: String { cacheLabel }
}

/// How the resolver cache took part in an answer.
public enum CacheUse: Sendable, Equatable, CustomStringConvertible {
    /// Not from the cache: asked of a source now (or a source that is never cached).
    case miss
    /// From the cache, within its TTL; `ageMillis` since it was fetched.
    case hit(ageMillis: Int64)
    /// From the cache past its TTL (RFC 8767 serve-stale), while a refresh runs or because every source failed.
    case stale(ageMillis: Int64)

    public var ageMillis: Int64? {
        switch self {
        case .miss: return nil
        case .hit(let age), .stale(let age): return age
        }
    }

    /// Both from the cache within the TTL, both past it, or both not from the cache, whatever the ages.
    public func isSameUse(as other: CacheUse) -> Bool {
        switch (self, other) {
        case (.miss, .miss), (.hit, .hit), (.stale, .stale): return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .miss: return "miss"
        case .hit: return "hit"
        case .stale: return "stale"
        }
    }
}

/// The addresses a host name resolved to, in the order to try them.
public struct Resolution: Sendable, Equatable {
    public var addresses: [IPAddress]
    public var source: ResolutionSource
    public var cache: CacheUse
    /// Seconds each family's answer may still be used; nil where nothing was cached for it.
    public var secondsLeft: SecondsLeftByFamily

    public init(addresses: [IPAddress], source: ResolutionSource, cache: CacheUse = .miss,
                secondsLeft: SecondsLeftByFamily = [:]) {
        self.addresses = addresses
        self.source = source
        self.cache = cache
        self.secondsLeft = secondsLeft
    }

    /// `source`, marked when the answer came from the cache: `google`, `cache:google`, `stale:google`. Made
    /// for every request, so it is joined rather than interpolated (no formatting through `description`).
    public var sourceLabel: String {
        switch cache {
        case .miss: return source.cacheLabel
        case .hit: return "cache:" + source.cacheLabel
        case .stale: return "stale:" + source.cacheLabel
        }
    }
}

/// Why a name did not resolve; becomes the body of a 502/504.
public struct ResolveFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case notFound
        /// The name exists but has no A or AAAA record (RFC 2308 §2.2 NODATA); says which source answered.
        case noAddresses(source: String)
        case timeout
        case failed(String)
    }

    public var host: String
    public var reason: Reason

    public init(host: String, reason: Reason) {
        self.host = host
        self.reason = reason
    }

    public var description: String { "cannot resolve \(host): \(reasonText)" }

    /// The reason alone, for lists of what each source said.
    public var reasonText: String {
        switch reason {
        case .notFound: return "no such name"
        case .noAddresses(let source): return "\(host) has no A or AAAA record (\(source))"
        case .timeout: return "resolver timed out"
        case .failed(let why): return why
        }
    }

    public var proxyError: ProxyError {
        switch reason {
        case .notFound: return ProxyError(status: 502, kind: .dnsError, details: description)
        case .timeout: return ProxyError(status: 504, kind: .dnsTimeout, details: description)
        case .failed, .noAddresses: return ProxyError(status: 502, kind: .dnsError, details: description)
        }
    }
}
