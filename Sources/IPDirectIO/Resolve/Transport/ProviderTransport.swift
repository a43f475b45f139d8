import IPDirectCore

/// How a provider's planned requests reach its endpoint: over HTTP (`HTTPDNSTransport`) or as DNS
/// messages over TLS (`DoTTransport`). Either way the completion runs once on the loop thread unless
/// the handle is cancelled first, and a failure makes the provider try its next bootstrap address.
protocol ProviderTransport: AnyObject {
    func send(_ request: HTTPDNSRequest, to address: IPAddress,
              completion: @escaping (Result<HTTPDNSResponse, HTTPDNSTransportError>) -> Void) -> ResolveHandle
    /// Closes every connection for good; later sends fail at once.
    func shutDown()
}

extension HTTPDNSTransport: ProviderTransport {}
