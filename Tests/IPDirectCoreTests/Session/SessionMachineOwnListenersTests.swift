import Testing
@testable import IPDirectCore

/// No way into the proxy leads to one of the daemon's own listeners, whatever `[hosts]` or
/// `allow_private_upstreams` say: the answer is 403 destination_ip_prohibited (SOCKS: not allowed) and no
/// connection is made.
@Suite struct SessionMachineOwnListenersTests {
    static let adminPort: UInt16 = 9901

    static var ownEndpoints: OwnEndpoints {
        var own = OwnEndpoints()
        own.add(.proxy, [SocketAddress("127.0.0.1:3128")!])
        own.add(.admin, [SocketAddress("127.0.0.1:\(adminPort)")!])
        return own
    }

    static func script(requiresAuthentication: Bool = false) -> SessionScript {
        SessionScript(requiresAuthentication: requiresAuthentication, ownEndpoints: ownEndpoints) { config in
            config.access.allowPrivateUpstreams = true
            config.access.connectPorts = [443, adminPort]
        }
    }

    @Test(arguments: [
        ("GET http://localhost:9901/cache HTTP/1.1\r\nHost: localhost:9901\r\n\r\n", ResolutionSource.hosts),
        ("POST http://localhost:9901/cache/flush HTTP/1.1\r\nHost: localhost:9901\r\nContent-Length: 0\r\n\r\n", .system),
        ("GET http://127.0.0.1:9901/metrics HTTP/1.1\r\nHost: 127.0.0.1:9901\r\n\r\n", .literal),
        ("CONNECT localhost:9901 HTTP/1.1\r\nHost: localhost:9901\r\n\r\n", .hosts),
    ])
    func anHTTPRequestToTheAdminListenerIsRefused(head: String, source: ResolutionSource) {
        var script = Self.script()
        let actions = script.all([.start, .head(head), .resolved(["127.0.0.1"], source)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(actions.sentText.contains("error=destination_ip_prohibited"))
        #expect(actions.sentText.contains("listener=admin 127.0.0.1:9901"))
        #expect(!actions.contains { if case .connect = $0 { return true } else { return false } })
        #expect(script.logged?.status == 403)
    }

    @Test func aRequestToTheProxysOwnPortIsRefusedAndNamesTheProxyListener() {
        var script = Self.script()
        let actions = script.all([.start, .head(Heads.get("http://localhost:3128/")), .resolved(["127.0.0.1"])])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 "))
        #expect(actions.sentText.contains("listener=proxy 127.0.0.1:3128"))
    }

    @Test func aSOCKS5ConnectToTheAdminListenerIsNotAllowedByTheRuleset() {
        var script = Self.script()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(SessionMachineSOCKSTests.greeting),
                                  .socksBytes(SessionMachineSOCKSTests.request("localhost", port: Self.adminPort)),
                                  .resolved(["127.0.0.1"])])
        #expect(actions.sentBytes.suffix(10) == SessionMachineSOCKSTests.failed(0x02)[...])
        #expect(actions.contains(.reportError(
            ProxyError(status: 403, kind: .destinationIPProhibited,
                       details: "localhost:9901 leads to ipdirect's own listener (listener=admin 127.0.0.1:9901), which the proxy never connects to"),
            target: "localhost:9901")))
        #expect(actions.last == .flushClient)
    }

    @Test func aSOCKS4aConnectToTheAdminListenerIsRejected() {
        var script = Self.script()
        let actions = script.all([.start, .socksVersion(4),
                                  .socksBytes(SessionMachineSOCKSTests.socks4a("localhost", port: Self.adminPort)),
                                  .resolved(["127.0.0.1"])])
        #expect(actions.sentBytes == [0, 0x5B, 0, 0, 0, 0, 0, 0])
        #expect(script.logged?.status == 403)
    }

    @Test func otherAddressesOfTheSameNameStillServe() {
        var script = Self.script()
        let actions = script.all([.start, .head(Heads.get("http://both.test:9901/")),
                                  .resolved(["127.0.0.1", "203.0.113.7"])])
        #expect(actions.contains { action in
            if case .connect(let request) = action { return request.addresses == [IPAddress("203.0.113.7")!] }
            return false
        })
    }
}
