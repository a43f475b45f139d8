import Testing
import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// The transport against a real nginx on loopback: HTTP/2 by ALPN, HTTP/1.1 over TLS and plain.
@Suite(.serialized, .enabled(if: NginxFixture.isAvailable, "nginx or the openssl CLI is not installed"))
final class HTTPDNSTransportTests {
    let nginx: NginxFixture

    init() throws {
        nginx = try NginxFixture()
    }

    @Test func negotiatesHTTP2ByALPNAndReadsTheAnswer() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.h2Port, caFile: nginx.certificatePath)
        let outcome = harness.fetch(TransportHarness.get("/answer"))
        let response = try #require(outcome?.response, "\(String(describing: outcome))")
        #expect(response.status == 200)
        #expect(response.protocolName == "h2")
        #expect(response.contentType == "application/dns-message")
        #expect(outcome?.bodyText.contains("protocol=HTTP/2.0 method=GET") == true)
    }

    @Test func multiplexesConcurrentRequestsOnOneHTTP2Connection() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.h2Port, caFile: nginx.certificatePath)
        // Five times what nginx allows at once: the rest must wait for stream slots, not be refused.
        let count = NginxFixture.maxConcurrentStreams * 5
        let outcomes = harness.fetchAll(Array(repeating: TransportHarness.get("/answer"), count: count))
        let responses = outcomes.compactMap { $0?.response }
        #expect(responses.count == count, "\(outcomes.filter { $0?.response == nil })")
        #expect(responses.allSatisfy { $0.protocolName == "h2" && $0.status == 200 })
        #expect(Set(responses.compactMap(\.nginxConnection)).count == 1)
        #expect(harness.transport.connectionCount(to: TransportHarness.loopback) == 1)
    }

    @Test func postsOverHTTP2AndKeepsTheConnection() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.h2Port, caFile: nginx.certificatePath)
        let posted = harness.fetch(TransportHarness.post("/answer", body: Array("dns message".utf8)))
        #expect(posted?.response?.status == 200, "\(String(describing: posted))")
        #expect(posted?.bodyText.contains("method=POST") == true)
        let fetched = harness.fetch(TransportHarness.get("/answer"))
        #expect(fetched?.response?.nginxConnection == posted?.response?.nginxConnection)
    }

    @Test func movesToANewHTTP2ConnectionAfterGoaway() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.limitedPort, caFile: nginx.certificatePath)
        let perConnection = NginxFixture.requestsPerLimitedConnection
        var connections: [Substring] = []
        for _ in 0..<(perConnection * 2 + 1) {
            let outcome = harness.fetch(TransportHarness.get("/limited"))
            let response = try #require(outcome?.response, "\(String(describing: outcome))")
            #expect(response.protocolName == "h2")
            connections.append(try #require(response.nginxConnection))
        }
        // nginx sends GOAWAY after each third request; the next request goes to a fresh connection.
        #expect(Set(connections).count == 3)
        #expect(connections.prefix(perConnection).allSatisfy { $0 == connections[0] })
    }

    @Test func speaksHTTP11OverTLSWhenTheServerDoesNotOfferH2() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.tlsPort, caFile: nginx.certificatePath)
        let outcome = harness.fetch(TransportHarness.get("/answer"))
        #expect(outcome?.response?.protocolName == "http/1.1", "\(String(describing: outcome))")
        #expect(outcome?.bodyText.contains("protocol=HTTP/1.1") == true)
    }

    @Test func reusesAKeepAliveHTTP11ConnectionForGetAndPost() throws {
        let harness = try TransportHarness(isHTTPS: false, port: nginx.plainPort)
        let requests = [
            TransportHarness.get("/answer"), TransportHarness.post("/answer", body: Array("abc".utf8)),
            TransportHarness.get("/answer"),
        ]
        var responses: [HTTPDNSResponse] = []
        for request in requests {
            let outcome = harness.fetch(request)
            responses.append(try #require(outcome?.response, "\(String(describing: outcome))"))
        }
        #expect(responses.map(\.status) == [200, 200, 200])
        #expect(responses.allSatisfy { $0.protocolName == "http/1.1" })
        #expect(String(decoding: responses[1].body, as: UTF8.self).contains("method=POST"))
        #expect(Set(responses.compactMap(\.nginxConnection)).count == 1)
        #expect(harness.transport.connectionCount(to: TransportHarness.loopback) == 1)
    }

    @Test func opensSeveralHTTP11ConnectionsForConcurrentRequests() throws {
        let harness = try TransportHarness(isHTTPS: false, port: nginx.plainPort)
        let count = 10
        let outcomes = harness.fetchAll(Array(repeating: TransportHarness.get("/answer"), count: count))
        let responses = outcomes.compactMap { $0?.response }
        #expect(responses.count == count)
        let connections = Set(responses.compactMap(\.nginxConnection)).count
        #expect(connections > 1 && connections <= HTTPDNSTransport.Limits().maximumHTTP1Connections)
    }

    @Test func rejectsACertificateForAnotherName() throws {
        let harness = try TransportHarness(isHTTPS: true, host: "wrong.test", port: nginx.h2Port,
                                           caFile: nginx.certificatePath)
        let outcome = harness.fetch(TransportHarness.get("/answer"))
        guard case .tls(_, let reason)? = outcome?.error else {
            Issue.record("expected a TLS failure, got \(String(describing: outcome))")
            return
        }
        #expect(reason.contains("hostname mismatch"))
        #expect(reason.contains("doh.test"))
    }

    @Test func rejectsAServerTheTrustStoreDoesNotKnow() throws {
        // No ca_file: the system trust store, which never trusts a certificate made by this test.
        let harness = try TransportHarness(isHTTPS: true, port: nginx.h2Port)
        let outcome = harness.fetch(TransportHarness.get("/answer"))
        guard case .tls? = outcome?.error else {
            Issue.record("expected a TLS failure, got \(String(describing: outcome))")
            return
        }
    }

    @Test(arguments: [true, false])
    func refusesABodyOverTheLimit(overHTTP2: Bool) throws {
        let harness = try TransportHarness(isHTTPS: overHTTP2, port: overHTTP2 ? nginx.h2Port : nginx.plainPort,
                                           caFile: nginx.certificatePath)
        let outcome = harness.fetch(TransportHarness.get("/large"))
        #expect(outcome?.error == .bodyTooLarge(limit: ProviderAnswerLimits.maximumBodySize), "\(String(describing: outcome))")
        // The HTTP/2 connection survives the reset stream; HTTP/1.1 opens a new one.
        #expect(harness.fetch(TransportHarness.get("/answer"))?.response?.status == 200)
    }

    @Test(arguments: [true, false])
    func turnsA503IntoAnHTTPStatusError(overHTTP2: Bool) throws {
        let harness = try TransportHarness(isHTTPS: overHTTP2, port: overHTTP2 ? nginx.h2Port : nginx.plainPort,
                                           caFile: nginx.certificatePath)
        let outcome = harness.fetch(TransportHarness.get("/unavailable"))
        // The error body is kept; the log quotes its start, escaped.
        #expect(outcome?.error == .httpStatus(503, body: "down\n"), "\(String(describing: outcome))")
        #expect(outcome?.error?.description == "HTTP status 503: 'down\\n'")
    }

    @Test(arguments: [true, false])
    func neverCompletesACancelledExchange(overHTTP2: Bool) throws {
        let harness = try TransportHarness(isHTTPS: overHTTP2, port: overHTTP2 ? nginx.h2Port : nginx.plainPort,
                                           caFile: nginx.certificatePath)
        var called = false
        let handle = harness.transport.send(TransportHarness.get("/answer"), to: TransportHarness.loopback) { _ in called = true }
        handle.cancel()
        LoopDriver.run(harness.base, forMillis: 300)
        #expect(!called)
        #expect(!handle.isFinished)
        #expect(harness.fetch(TransportHarness.get("/answer"))?.response?.status == 200)
    }

    @Test func closeAllFailsExchangesInFlight() throws {
        let harness = try TransportHarness(isHTTPS: true, port: nginx.h2Port, caFile: nginx.certificatePath)
        var outcome: TransportHarness.Outcome?
        _ = harness.transport.send(TransportHarness.get("/answer"), to: TransportHarness.loopback) { outcome = $0 }
        harness.transport.closeAll()
        guard case .connectionClosed? = outcome?.error else {
            Issue.record("expected connectionClosed, got \(String(describing: outcome))")
            return
        }
        #expect(harness.transport.connectionCount(to: TransportHarness.loopback) == 0)
    }
}
