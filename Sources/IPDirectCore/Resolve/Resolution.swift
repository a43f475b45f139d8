/// Where an upstream address came from; printed in access logs and by `ipdirect resolve`.
public enum ResolutionSource: Sendable, Equatable, CustomStringConvertible {
    /// The request named an IP address; nothing was looked up.
    case literal
    /// A `[hosts]` entry of the config.
    case hosts
    /// The system resolver (evdns with /etc/resolv.conf or `system_nameservers`).
    case system

    public var description: String {
        switch self {
        case .literal: return "literal"
        case .hosts: return "hosts"
        case .system: return "system"
        }
    }
}

/// The addresses a host name resolved to, in the order to try them.
public struct Resolution: Sendable, Equatable {
    public var addresses: [IPAddress]
    public var source: ResolutionSource

    public init(addresses: [IPAddress], source: ResolutionSource) {
        self.addresses = addresses
        self.source = source
    }
}

/// Why a name did not resolve; becomes the body of a 502/504.
public struct ResolveFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case notFound
        case timeout
        case failed(String)
    }

    public var host: String
    public var reason: Reason

    public init(host: String, reason: Reason) {
        self.host = host
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notFound: return "cannot resolve \(host): no such name"
        case .timeout: return "cannot resolve \(host): resolver timed out"
        case .failed(let why): return "cannot resolve \(host): \(why)"
        }
    }

    public var proxyError: ProxyError {
        switch reason {
        case .notFound: return ProxyError(status: 502, kind: .dnsError, details: description)
        case .timeout: return ProxyError(status: 504, kind: .dnsTimeout, details: description)
        case .failed: return ProxyError(status: 502, kind: .dnsError, details: description)
        }
    }
}
