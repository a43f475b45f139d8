import Testing
import IPDirectCore
@testable import IPDirectIO
import IPDirectTesting

/// The transport against scripted loopback servers: exact request bytes, chunked and malformed
/// responses, silence (timeouts), refusals and connections the server drops while idle.
@Suite(.serialized) struct HTTPDNSTransportFailureTests {
    /// Short, so timeout tests stay quick; the slack covers a busy machine.
    static let shortTimeoutMillis = 300
    static let timingSlackMillis = 1500
    /// libevent times events with CLOCK_MONOTONIC_COARSE (one scheduler tick, up to 10 ms at HZ=100), so a
    /// deadline can fire up to a tick before the precise clock this test reads says it is due.
    static let coarseClockTickMillis = 10

    static func okResponse(_ body: String, extraFields: String = "") -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Type: application/dns-json\r\nContent-Length: \(body.utf8.count)\r\n\(extraFields)\r\n\(body)".utf8)
    }

    @Test func writesTheHTTP11RequestExactly() throws {
        let server = try ScriptedHTTPServer(.respond(response: Self.okResponse("ok"), closeAfterMillis: nil))
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        let request = HTTPDNSRequest(target: "/dns-query", headerFields: [.init(name: "Accept", value: "application/dns-message")],
                                     method: .post, body: [0x00, 0x01, 0x02])
        let outcome = harness.fetch(request)
        #expect(outcome?.response?.body == Array("ok".utf8), "\(String(describing: outcome))")
        let expected = Array("POST /dns-query HTTP/1.1\r\nHost: doh.test:\(server.port)\r\nAccept: application/dns-message\r\nContent-Length: 3\r\n\r\n".utf8) + [0x00, 0x01, 0x02]
        #expect(server.receivedRequests == [expected])
    }

    @Test func readsAChunkedBody() throws {
        let response = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/dns-json\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n".utf8)
        let server = try ScriptedHTTPServer(.respond(response: response, closeAfterMillis: nil))
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        let first = harness.fetch(TransportHarness.get("/resolve?name=a.test&type=A"))
        #expect(first?.response == HTTPDNSResponse(status: 200, contentType: "application/dns-json",
                                                   body: Array("hello world".utf8), protocolName: "http/1.1"))
        // The chunked body was framed exactly: the connection is reused.
        #expect(harness.fetch(TransportHarness.get("/resolve?name=b.test&type=A"))?.response?.status == 200)
        #expect(server.acceptedCount == 1)
    }

    @Test func reportsAMalformedHeadAsAProtocolError() throws {
        let server = try ScriptedHTTPServer(.respond(response: Array("HTTP/1.1 200 OK\nContent-Length: 2\n\nok".utf8), closeAfterMillis: nil))
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        guard case .protocolError? = harness.fetch(TransportHarness.get("/d?dn=a.test"))?.error else {
            Issue.record("a bare-LF head must be refused")
            return
        }
    }

    @Test func reportsATruncatedBodyAsAClosedConnection() throws {
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort".utf8)
        let server = try ScriptedHTTPServer(.respond(response: response, closeAfterMillis: 0))
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        guard case .connectionClosed? = harness.fetch(TransportHarness.get("/d?dn=a.test"))?.error else {
            Issue.record("a body cut short must fail")
            return
        }
    }

    @Test func timesOutAwaitingASilentServer() throws {
        let server = try ScriptedHTTPServer(.silent)
        let harness = try TransportHarness(isHTTPS: false, port: server.port, timeoutMillis: Self.shortTimeoutMillis)
        let started = MonotonicClock.nowMicros()
        let outcome = harness.fetch(TransportHarness.get("/d?dn=a.test"))
        let elapsedMillis = Int((MonotonicClock.nowMicros() - started) / 1000)
        #expect(outcome?.error == .timedOut(phase: .awaitingResponse, millis: Self.shortTimeoutMillis))
        #expect(elapsedMillis >= Self.shortTimeoutMillis - Self.coarseClockTickMillis
                && elapsedMillis < Self.shortTimeoutMillis + Self.timingSlackMillis)
    }

    @Test func timesOutConnectingWhenTheTLSHandshakeNeverEnds() throws {
        let server = try ScriptedHTTPServer(.silent)
        let harness = try TransportHarness(isHTTPS: true, port: server.port, timeoutMillis: Self.shortTimeoutMillis)
        let started = MonotonicClock.nowMicros()
        let outcome = harness.fetch(TransportHarness.get("/dns-query?dns=AAAB"))
        let elapsedMillis = Int((MonotonicClock.nowMicros() - started) / 1000)
        #expect(outcome?.error == .timedOut(phase: .connecting, millis: Self.shortTimeoutMillis))
        #expect(elapsedMillis < Self.shortTimeoutMillis + Self.timingSlackMillis)
    }

    @Test func reportsARefusedConnectWithTheAddress() throws {
        let closedPort = try LoopbackPorts.free(count: 1)[0]
        let harness = try TransportHarness(isHTTPS: false, port: closedPort)
        guard case .connectFailed(let address, let reason)? = harness.fetch(TransportHarness.get("/d"))?.error else {
            Issue.record("expected a connect failure")
            return
        }
        #expect(address == SocketAddress(ip: TransportHarness.loopback, port: closedPort))
        #expect(reason.contains("refused"))
    }

    @Test func doesNotReuseAnIdleConnectionTheServerClosed() throws {
        let server = try ScriptedHTTPServer(.respond(response: Self.okResponse("ok"), closeAfterMillis: 20))
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        #expect(harness.fetch(TransportHarness.get("/d?dn=a.test"))?.response?.status == 200)
        LoopDriver.run(harness.base, forMillis: 200)
        #expect(harness.transport.connectionCount(to: TransportHarness.loopback) == 0)
        #expect(harness.fetch(TransportHarness.get("/d?dn=b.test"))?.response?.status == 200)
        #expect(server.acceptedCount == 2)
    }

    @Test func refusesFieldsThatWouldSplitTheHead() throws {
        let server = try ScriptedHTTPServer(.silent)
        let harness = try TransportHarness(isHTTPS: false, port: server.port)
        let request = HTTPDNSRequest(target: "/d", headerFields: [.init(name: "X-Token", value: "a\r\nHost: evil.test")])
        guard case .invalidRequest? = harness.fetch(request)?.error else {
            Issue.record("a CR LF in a field value must be refused")
            return
        }
        #expect(server.acceptedCount == 0)
    }
}
