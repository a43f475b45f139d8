import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// One event loop and one transport, with blocking helpers that run the loop until answers arrive.
final class TransportHarness {
    typealias Outcome = Result<HTTPDNSResponse, HTTPDNSTransportError>

    static let loopback = IPAddress.v4(LoopbackPorts.loopback)
    /// Generous: the tests that check timing set their own.
    static let defaultTimeoutMillis = 5000

    let base = EventBase()
    let transport: HTTPDNSTransport

    init(isHTTPS: Bool, host: String = NginxFixture.hostName, port: UInt16, caFile: String? = nil,
         timeoutMillis: Int = defaultTimeoutMillis) throws {
        let endpoint = HTTPDNSEndpoint(isHTTPS: isHTTPS, host: host, port: port)
        let tls = isHTTPS ? try HTTPDNSTransport.makeTLSContext(trust: TrustStore(caFile: caFile, caPath: nil)) : nil
        transport = HTTPDNSTransport(base: base, endpoint: endpoint, tls: tls, timeoutMillis: timeoutMillis)
    }

    deinit { transport.closeAll() }

    /// Sends one request and waits for its outcome (nil if none came within the loop limit).
    func fetch(_ request: HTTPDNSRequest) -> Outcome? {
        fetchAll([request]).first ?? nil
    }

    /// Sends all `requests` at once and waits for every outcome, in request order.
    func fetchAll(_ requests: [HTTPDNSRequest]) -> [Outcome?] {
        var outcomes = [Outcome?](repeating: nil, count: requests.count)
        var handles: [ResolveHandle] = []
        var completions = 0
        for (index, request) in requests.enumerated() {
            handles.append(transport.send(request, to: TransportHarness.loopback) { outcome in
                outcomes[index] = outcome
                completions += 1
            })
        }
        LoopDriver.run(base) { completions == requests.count }
        #expect(handles.allSatisfy { $0.isFinished })
        return outcomes
    }

    static func get(_ target: String) -> HTTPDNSRequest {
        HTTPDNSRequest(target: target, headerFields: [.init(name: "Accept", value: "application/dns-message")])
    }

    static func post(_ target: String, body: [UInt8]) -> HTTPDNSRequest {
        HTTPDNSRequest(target: target, headerFields: [.init(name: "Content-Type", value: "application/dns-message")],
                       method: .post, body: body)
    }
}

extension Result where Success == HTTPDNSResponse {
    var response: HTTPDNSResponse? { try? get() }
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
    var bodyText: String { response.map { String(decoding: $0.body, as: UTF8.self) } ?? "" }
}

extension HTTPDNSResponse {
    /// The nginx connection serial in an /answer body ("connection=N").
    var nginxConnection: Substring? {
        String(decoding: body, as: UTF8.self).split(separator: " ").first { $0.hasPrefix("connection=") }
    }
}
