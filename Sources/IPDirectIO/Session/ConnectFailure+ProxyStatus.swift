import IPDirectCore

/// What a client is told when its upstream cannot be reached: the session turns the connector's list
/// of attempts into a Proxy-Status error (the HTTPDNS transport reports the same failure in its own terms).
extension ConnectFailure {
    /// 504 when every address timed out, 502 otherwise (RFC 9209 §2.3.10-12); TLS failures in
    /// TLSFailure's terms.
    var proxyError: ProxyError {
        switch cause {
        case .attempts(let attempts):
            if timedOut { return ProxyError(status: 504, kind: .connectionTimeout, details: description) }
            let kind: ProxyError.Kind = attempts.contains { $0.outcome == .refused } ? .connectionRefused : .destinationNotFound
            return ProxyError(status: 502, kind: kind, details: description)
        case .tls(let failure, let host, let address):
            return failure.proxyError(host: host, address: address)
        }
    }
}
