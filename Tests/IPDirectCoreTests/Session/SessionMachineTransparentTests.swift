import Testing
@testable import IPDirectCore

/// A connection redirected to the transparent listener goes where its first bytes say: a ClientHello's server
/// name or an HTTP request's Host, through the lookup and the ranking, at the original port; otherwise the DNS
/// listener's name for the original address, or the original address itself. The client is told nothing but
/// what the origin says (or an HTTP answer to an HTTP request).
@Suite struct SessionMachineTransparentTests {
    static let hijacked = SocketAddress(ip: IPAddress("198.51.100.9")!, port: 443)

    static func connectAddresses(_ actions: [SessionScript.Action]) -> [IPAddress]? {
        for case .connect(let request) in actions { return request.addresses }
        return nil
    }

    @Test func aClientHelloGoesToItsServerNameAtTheOriginalPortAndHearsNothingFromTheProxy() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make(serverName: "origin.test")),
                                  .resolved(["203.0.113.3"], .httpdns("stub")), .ready()])
        #expect(actions[0].contains { if case .armTimer(1_000) = $0 { return true } else { return false } },
                "sniff_timeout arms the timer: \(actions[0])")
        #expect(actions[1].last == .resolve(host: "origin.test"))
        #expect(script.machine.request.port == 443 && script.machine.request.frontEnd == .transparent)
        #expect(actions[2].contains(.reportTransparentMismatch(answer: [IPAddress("203.0.113.3")!])),
                "the client's own address is not in the answer: \(actions[2])")
        #expect(Self.connectAddresses(actions[2]) == [IPAddress("203.0.113.3")!])
        #expect(actions[3].contains(.startTunnel))
        #expect(actions.flatMap { $0 }.sentBytes.isEmpty, "a redirected client hears nothing from the proxy")
        #expect(script.machine.transparent?.sniffed == .tls && script.machine.transparent?.serverName == "origin.test")
        #expect(script.machine.transparent?.originalInAnswer == false)
    }

    @Test func aClientHelloInTwoPartsWaitsForItsSecond() {
        let hello = ClientHelloBytes.make(serverName: "origin.test", padding: 1_500)
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.run([.start, .sniffed(Array(hello[..<900])), .wait(millis: 200), .sniffed(hello)])
        #expect(actions[1].isEmpty, "half a ClientHello decides nothing: \(actions[1])")
        #expect(actions[3].last == .resolve(host: "origin.test"))
    }

    @Test func anAddressInTheAnswerIsNoMismatch() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.all([.start, .sniffed(ClientHelloBytes.make()), .resolved(["198.51.100.9", "203.0.113.3"])])
        #expect(!actions.contains { if case .reportTransparentMismatch = $0 { return true } else { return false } })
        #expect(script.machine.transparent?.originalInAnswer == true)
    }

    @Test func withoutAServerNameTheOriginalAddressIsKept() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make(serverName: nil)), .resolved(["198.51.100.9"], .literal),
                                  .ready()])
        #expect(actions[1].last == .resolve(host: "198.51.100.9"))
        #expect(script.machine.transparent?.sniffed == TransparentSniff.none)
        #expect(actions[3].contains(.startTunnel) && actions.flatMap { $0 }.sentBytes.isEmpty)
        #expect(script.machine.request.method == "TCP")
    }

    @Test func withoutAServerNameTheDNSListenersNameForTheAddressIsUsedWhileFresh() {
        var script = SessionScript(redirectedTo: Self.hijacked, answeredName: "answered.test")
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make(serverName: nil))])
        #expect(actions[1].last == .resolve(host: "answered.test"))
        #expect(script.machine.transparent?.sniffed == .dns)
    }

    @Test func aServerSpeaksFirstProtocolGoesToTheOriginalAddressAfterTheSniffTimeout() {
        let smtp = SocketAddress(ip: IPAddress("198.51.100.25")!, port: 25)
        var script = SessionScript(redirectedTo: smtp) { $0.access.connectPorts = [25]; $0.transparent.sniffTimeoutMs = 500 }
        let actions = script.run([.start, .wait(millis: 499), .timer, .wait(millis: 1), .timer])
        #expect(!actions[2].contains { if case .resolve = $0 { return true } else { return false } }, "not yet: \(actions[2])")
        #expect(actions[4].last == .resolve(host: "198.51.100.25"))
        #expect(script.machine.request.port == 25)
    }

    @Test func bytesThatAreNeitherTLSNorHTTPGoToTheOriginalAddressAtOnce() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.run([.start, .sniffed(Array("SSH-2.0-OpenSSH_9.2\r\n".utf8))])
        #expect(actions[1].last == .resolve(host: "198.51.100.9"))
    }

    @Test func withUnsniffedResetAConnectionThatNamesNothingIsClosedWithALogLine() {
        var script = SessionScript(redirectedTo: Self.hijacked) { $0.transparent.unsniffed = .reset }
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make(serverName: nil))])
        #expect(actions[1].contains(.logExchange) && actions[1].closes)
        #expect(actions[1].sentBytes.isEmpty)
        #expect(script.logged?.status == 403)
    }

    @Test func aClientOutsideTheClientListIsClosedAtOnceWithoutAWord() {
        var script = SessionScript(redirectedTo: Self.hijacked, clientPermitted: false)
        let actions = script.all([.start])
        #expect(actions.closes && actions.sentBytes.isEmpty)
        #expect(script.logged?.status == 403)
    }

    @Test func aPortOutsideConnectPortsIsRefusedAsACONNECTWouldBe() {
        let other = SocketAddress(ip: IPAddress("198.51.100.9")!, port: 8443)
        var script = SessionScript(redirectedTo: other)
        let actions = script.all([.start, .sniffed(ClientHelloBytes.make())])
        #expect(actions.closes && actions.sentBytes.isEmpty)
        #expect(script.logged?.note.contains("access.connect_ports") == true)
    }

    @Test func aFailedConnectClosesTheConnectionWithoutAnHTTPAnswer() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.all([.start, .sniffed(ClientHelloBytes.make()), .resolved(["203.0.113.3"]),
                                  .connectFailed(ProxyError(status: 502, kind: .connectionRefused, details: "refused"), attempts: 1)])
        #expect(actions.closes && actions.sentBytes.isEmpty)
        #expect(script.logged?.status == 502)
    }

    @Test func inObserveModeTheOriginalAddressIsConnectedAndTheAnswerReported() {
        var script = SessionScript(redirectedTo: Self.hijacked) { $0.transparent.mode = .observe }
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make()), .resolved(["203.0.113.3"])])
        #expect(Self.connectAddresses(actions[2]) == [IPAddress("198.51.100.9")!])
        #expect(actions[2].contains(.reportTransparentMismatch(answer: [IPAddress("203.0.113.3")!])))
    }

    @Test func inObserveModeANameThatDoesNotResolveStillLeavesTheOriginalAddress() {
        var script = SessionScript(redirectedTo: Self.hijacked) { $0.transparent.mode = .observe }
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make()), .lookupFailed(.notFound)])
        #expect(Self.connectAddresses(actions[2]) == [IPAddress("198.51.100.9")!])
        #expect(!actions[2].closes)
        #expect(script.machine.record.note.hasPrefix("observe: "), "\(script.machine.record.note)")
    }

    @Test func inObserveModeANameThePolicyRefusesStillLeavesTheOriginalAddress() {
        var script = SessionScript(redirectedTo: Self.hijacked) { $0.transparent.mode = .observe }
        let actions = script.run([.start, .sniffed(ClientHelloBytes.make()), .resolved(["10.1.2.3"], .httpdns("test"))])
        #expect(Self.connectAddresses(actions[2]) == [IPAddress("198.51.100.9")!])
        #expect(script.machine.record.note.contains("non-public"), "\(script.machine.record.note)")
    }

    @Test func inOverrideModeANameThatDoesNotResolveIsNotServed() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        let actions = script.all([.start, .sniffed(ClientHelloBytes.make()), .lookupFailed(.notFound)])
        #expect(actions.closes && Self.connectAddresses(actions) == nil && actions.sentBytes.isEmpty)
    }

    @Test func anHTTPRequestGoesToItsHostAtTheOriginalPortWithItsHeadAsWritten() {
        let web = SocketAddress(ip: IPAddress("198.51.100.80")!, port: 80)
        var script = SessionScript(redirectedTo: web)
        let head = "GET /page?q=1 HTTP/1.1\r\nHost: Web.Test\r\nCookie: a=b\r\n\r\n"
        let actions = script.run([.start, .sniffed(Array(head.utf8)), .head(head), .resolved(["203.0.113.80"]), .ready()])
        #expect(actions[1].last == .readNextRequest)
        #expect(actions[2].last == .resolve(host: "web.test"))
        #expect(script.machine.request.port == 80 && script.machine.request.frontEnd == .http)
        let forwarded = actions[4].forwardedRequest ?? ""
        #expect(forwarded.hasPrefix("GET /page?q=1 HTTP/1.1\r\nHost: Web.Test\r\n"), "\(forwarded)")
        #expect(forwarded.contains("Cookie: a=b\r\n"))
        #expect(script.machine.transparent?.sniffed == .http)
    }

    @Test func anHTTPRequestWithoutHostGoesToTheOriginalAddress() {
        let web = SocketAddress(ip: IPAddress("198.51.100.80")!, port: 80)
        var script = SessionScript(redirectedTo: web)
        let head = "GET / HTTP/1.0\r\n\r\n"
        let actions = script.run([.start, .sniffed(Array(head.utf8)), .head(head)])
        #expect(actions[2].last == .resolve(host: "198.51.100.80"))
    }

    @Test func aProxyRequestOnARedirectedConnectionIsRefused() {
        let web = SocketAddress(ip: IPAddress("198.51.100.80")!, port: 80)
        var script = SessionScript(redirectedTo: web)
        let connect = "CONNECT host.test:22 HTTP/1.1\r\nHost: host.test:22\r\n\r\n"
        let actions = script.all([.start, .sniffed(Array(connect.utf8)), .head(connect)])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 400 "))
        let absolute = "GET http://other.test:8080/ HTTP/1.1\r\nHost: other.test:8080\r\n\r\n"
        var second = SessionScript(redirectedTo: web)
        #expect(second.all([.start, .sniffed(Array(absolute.utf8)), .head(absolute)]).sentText.hasPrefix("HTTP/1.1 400 "))
    }

    @Test func aRedirectedHTTPConnectionIsNeverParked() {
        let web = SocketAddress(ip: IPAddress("198.51.100.80")!, port: 80)
        var script = SessionScript(redirectedTo: web)
        let head = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n"
        let actions = script.all([.start, .sniffed(Array(head.utf8)), .head(head), .resolved(["203.0.113.80"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                  .responsePumped(.complete, moved: 5), .wait(millis: SessionRules.parkAfterMillis), .timer])
        #expect(!actions.contains { if case .park = $0 { return true } else { return false } })
        #expect(script.machine.phase == .readingHead)
    }

    @Test func whileSniffingTheClientsBytesAreSniffedAndNothingElseIsRead() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        _ = script.run([.start])
        #expect(script.machine.bytesArrived(from: .client) == .sniffClientInput)
        #expect(script.machine.bytesArrived(from: .upstream) == nil)
    }

    @Test func aFINBeforeTheFirstBytesNameAnythingCloses() {
        var script = SessionScript(redirectedTo: Self.hijacked)
        #expect(script.all([.start, .clientFIN]).closes)
    }
}
