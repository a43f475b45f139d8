import IPDirectCore

/// Placeholder until the transport lands.
final class HTTPDNSProvider: HTTPDNSSource {
    let name: String
    init(base: EventBase, settings: HTTPDNSProviderSettings) throws(StartupError) { name = settings.name }
    func resolve(_ name: String, completion: @escaping (Result<NameAnswer, HTTPDNSQueryFailure>) -> Void) {
        completion(.failure(HTTPDNSQueryFailure(reason: "not built", timedOut: false)))
    }
    func close() {}
}
