import IPDirectCore

/// One `[[resolver.httpdns]]` provider: builds its format's requests for a name, sends them to the
/// endpoint through its bootstrap addresses (never through DNS, never through a proxy), one address
/// after another until one gives a usable answer, and reads the answers.
final class HTTPDNSProvider: HTTPDNSSource {
    let name: String
    private let bootstrap: [IPAddress]
    private let plan: ProviderQueryPlan
    private let transport: ProviderTransport

    /// `trust` gives the CAs of the `[tls]` section, loaded once for the proxy and every provider: they are
    /// trusted for this endpoint too, unless the provider names its own `ca_file`, which then replaces them.
    init(base: EventBase, settings: HTTPDNSProviderSettings, trust: () throws(StartupError) -> TrustStore) throws(StartupError) {
        name = settings.name
        bootstrap = settings.bootstrap
        plan = try ProviderQueryPlan(settings: settings)
        var trustAndPins: (TrustStore, [String: [String]])?
        if settings.url.usesTLS {
            let endpointTrust = if let caFile = settings.caFile { try TrustStore(caFile: caFile, caPath: nil) } else { try trust() }
            trustAndPins = (endpointTrust, settings.spkiSHA256.isEmpty ? [:] : [settings.url.host: settings.spkiSHA256])
        }
        let endpoint = HTTPDNSEndpoint(isHTTPS: settings.url.isHTTPS, host: settings.url.host,
                                       port: settings.url.port, authority: settings.url.authority)
        if settings.url.isDoT, let (trust, pins) = trustAndPins {
            let tls = try DoTTransport.makeTLSContext(trust: trust, pins: pins)
            transport = DoTTransport(base: base, provider: settings.name, endpoint: endpoint, tls: tls,
                                     timeoutMillis: settings.timeoutMs)
        } else {
            let tls = try trustAndPins.map { (trust, pins) throws(StartupError) in
                try HTTPDNSTransport.makeTLSContext(trust: trust, pins: pins)
            }
            transport = HTTPDNSTransport(base: base, endpoint: endpoint, tls: tls, timeoutMillis: settings.timeoutMs)
        }
    }

    /// Runs on the loop thread each time a `dot` provider's TLS connection opens, for the metrics.
    var dotConnectionOpened: (() -> Void)? {
        get { (transport as? DoTTransport)?.connectionOpened }
        set { (transport as? DoTTransport)?.connectionOpened = newValue }
    }

    func close() {
        transport.shutDown()
    }

    func resolve(_ name: String, completion: @escaping (Result<NameAnswer, HTTPDNSQueryFailure>) -> Void) {
        let exchanges: [PlannedExchange]
        switch plan.exchanges(for: name, unixSeconds: Int(MonotonicClock.wallMillis() / 1000)) {
        case .failure(let failure):
            completion(.failure(failure))
            return
        case .success(let planned):
            exchanges = planned
        }
        // Every exchange must answer (A and AAAA for DoH and JSON); the first failure fails the provider.
        var answer = NameAnswer(v4: .noAddresses, v6: .noAddresses)
        var remaining = exchanges.count
        var firstFailure: HTTPDNSQueryFailure?
        for exchange in exchanges {
            let what = "name=\(name) families=\(exchange.families.map(\.rawValue).joined(separator: ","))"
            send(exchange.request, read: exchange.read, what: what, via: bootstrap[...], failures: [], timeouts: 0) { result in
                remaining -= 1
                switch result {
                case .success(let part) where exchange.families.count == AddressFamily.allCases.count:
                    answer = NameAnswer(splitting: part)
                case .success(let part):
                    for family in exchange.families { answer[family] = part }
                case .failure(let failure):
                    firstFailure = firstFailure ?? failure
                }
                guard remaining == 0 else { return }
                completion(firstFailure.map { .failure($0) } ?? .success(answer))
            }
        }
    }

    var carriesDNSMessages: Bool { plan.carriesDNSMessages }

    func exchange(_ relayed: DNSRelayedQuery, completion: @escaping (Result<[UInt8], HTTPDNSQueryFailure>) -> Void) {
        guard let (request, read) = plan.messageExchange(relayed) else {
            return completion(.failure(HTTPDNSQueryFailure("its format cannot carry a DNS message")))
        }
        send(request, read: read, what: "relayed message", via: bootstrap[...], failures: [], timeouts: 0,
             completion: completion)
    }

    /// Tries `request` on each bootstrap address in turn until one answers usably (as `read` says);
    /// `what` names the request in the log.
    private func send<Answer>(_ request: HTTPDNSRequest, read: @escaping (_ body: [UInt8], _ contentType: String?) -> Result<Answer, HTTPDNSQueryFailure>,
                              what: String, via addresses: ArraySlice<IPAddress>, failures: [String], timeouts: Int,
                              completion: @escaping (Result<Answer, HTTPDNSQueryFailure>) -> Void) {
        var addresses = addresses
        guard let address = addresses.popFirst() else {
            completion(.failure(HTTPDNSQueryFailure(reason: failures.joined(separator: "; "),
                                                    timedOut: !failures.isEmpty && timeouts == failures.count)))
            return
        }
        _ = transport.send(request, to: address) { [self] result in
            let outcome: Result<Answer, HTTPDNSQueryFailure>
            switch result {
            case .success(let response):
                outcome = read(response.body, response.contentType)
            case .failure(let error):
                outcome = .failure(HTTPDNSQueryFailure(reason: error.description, timedOut: error.isTimeout))
            }
            switch outcome {
            case .success:
                completion(outcome)
            case .failure(let failure):
                Logger.info("event=httpdns_attempt_failed provider=\(self.name) address=\(address) \(what) reason=\"\(failure.reason)\"")
                send(request, read: read, what: what, via: addresses, failures: failures + ["\(address): \(failure.reason)"],
                     timeouts: timeouts + (failure.timedOut ? 1 : 0), completion: completion)
            }
        }
    }
}
