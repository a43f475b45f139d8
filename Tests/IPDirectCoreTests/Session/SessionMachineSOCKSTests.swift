import Testing
@testable import IPDirectCore

/// SOCKS5 and SOCKS4a on the proxy port: negotiation, the same policy as CONNECT, replies a client can
/// act on.
@Suite struct SessionMachineSOCKSTests {
    /// VER 5, one method: no authentication.
    static let greeting: [UInt8] = [5, 1, 0]
    /// VER 5, two methods: no authentication, username/password.
    static let greetingWithPassword: [UInt8] = [5, 2, 0, 2]

    /// CONNECT to a name (ATYP 3) and port.
    static func request(_ name: String, port: UInt16, command: UInt8 = 1) -> [UInt8] {
        [5, command, 0, 3, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    /// SOCKS4a CONNECT to a name.
    static func socks4a(_ name: String, port: UInt16) -> [UInt8] {
        [4, 1, UInt8(port >> 8), UInt8(port & 0xFF), 0, 0, 0, 1] + Array("user".utf8) + [0] + Array(name.utf8) + [0]
    }

    static let succeeded: [UInt8] = [5, 0, 0, 1, 0, 0, 0, 0, 0, 0]

    static func failed(_ code: UInt8) -> [UInt8] { [5, code, 0, 1, 0, 0, 0, 0, 0, 0] }

    @Test func aSOCKS5ConnectToANameIsResolvedByTheProxyAndTunnelled() {
        var script = SessionScript()
        let greeting = Self.greeting
        let request = Self.request("a.test", port: 443)
        let actions = script.run([.start, .socksVersion(5), .socksBytes(greeting), .socksBytes(request),
                                  .resolved(["203.0.113.7"]), .ready()])
        #expect(actions[2] == [.consumeClientInput(3), .sendToClient([5, 0]), .readNextRequest])
        #expect(actions[3] == [.consumeClientInput(request.count), .resolve(host: "a.test")])
        #expect(actions[5].first == .sendToClient(Self.succeeded))
        #expect(actions[5].last == .startTunnel)
        #expect(script.machine.phase == .tunneling)
        #expect(script.machine.request.method == "SOCKS5")
        #expect(script.machine.request.hostPort == "a.test:443")
    }

    @Test func anIncompleteMessageWaitsForMore() {
        var script = SessionScript()
        let actions = script.run([.start, .socksVersion(5), .socksBytes([5, 2, 0])])
        #expect(actions[2] == [])
        #expect(script.machine.phase == .socksNegotiation)
    }

    @Test func garbageInTheGreetingClosesWithoutAReply() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes([5, 0])])
        #expect(actions.sentBytes.isEmpty)
        #expect(actions.last == .close)
        #expect(script.logged?.note.hasPrefix("socks5 greeting") == true)
    }

    @Test func aClientThatClosesMidNegotiationIsClosed() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .buffers(BufferLevels(clientInput: 2)), .clientFIN,
                                  .socksBytes([5, 2])])
        #expect(actions.last == .close)
    }

    @Test func aNameThatDoesNotResolveIsHostUnreachable() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting),
                                  .socksBytes(Self.request("nx.test", port: 443)), .lookupFailed(.notFound)])
        #expect(actions.sentBytes == [5, 0] + Self.failed(0x04))
        #expect(actions.contains { if case .reportError(let error, _) = $0 { return error.kind == .dnsError } else { return false } })
        #expect(script.logged?.status == 502)
        #expect(script.machine.phase == .flushing)
    }

    @Test(arguments: [(ProxyError.Kind.connectionRefused, UInt8(0x05)), (.connectionTimeout, 0x06),
                      (.destinationIPProhibited, 0x02), (.tlsProtocolError, 0x01)])
    func aFailedConnectIsAnsweredWithTheCodeAClientCanActOn(kind: ProxyError.Kind, code: UInt8) {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting),
                                  .socksBytes(Self.request("a.test", port: 443)), .resolved(["203.0.113.7"]),
                                  .connectFailed(ProxyError(status: 502, kind: kind, details: "x"), attempts: 1)])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(code))
    }

    @Test func aPortOutsideConnectPortsIsNotAllowedByTheRuleset() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting), .socksBytes(Self.request("a.test", port: 25))])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(0x02))
        #expect(!actions.contains(.resolve(host: "a.test")))
    }

    @Test func aNameResolvingInsideIsNotAllowedByTheRuleset() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting),
                                  .socksBytes(Self.request("a.test", port: 443)), .resolved(["10.0.0.1"], .system)])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(0x02))
    }

    @Test(arguments: [UInt8(2), 3])
    func bindAndUDPAssociateAreCommandNotSupported(command: UInt8) {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting),
                                  .socksBytes(Self.request("a.test", port: 443, command: command))])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(0x07))
        #expect(actions.last == .flushClient)
    }

    @Test func anUnknownAddressTypeIsAnsweredAsSuch() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting), .socksBytes([5, 1, 0, 9, 1, 2])])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(0x08))
    }

    @Test func aClientOutsideTheACLIsNotAllowed() {
        var script = SessionScript(clientPermitted: false)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greeting), .socksBytes(Self.request("a.test", port: 443))])
        #expect(Array(actions.sentBytes.suffix(10)) == Self.failed(0x02))
        #expect(script.logged?.status == 403)
    }

    @Test func aClientOutsideTheACLNeverHasAPasswordChecked() {
        var script = SessionScript(clientPermitted: false, requiresAuthentication: true)
        let credentials: [UInt8] = [1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greetingWithPassword), .socksBytes(credentials)])
        // Offered both, it is given "no authentication", so what it sends next is read as its request.
        #expect(actions.sentBytes == [5, 0])
        #expect(!actions.contains { if case .verifyCredentials = $0 { return true } else { return false } })
        #expect(actions.last == .close)
        var onlyPassword = SessionScript(clientPermitted: false, requiresAuthentication: true)
        let refused = onlyPassword.all([.start, .socksVersion(5), .socksBytes([5, 1, 2]), .socksBytes(credentials)])
        #expect(refused.sentBytes == [5, 2, 1, 1])
        #expect(!refused.contains { if case .verifyCredentials = $0 { return true } else { return false } })
        #expect(onlyPassword.logged?.status == 403)
        #expect(onlyPassword.machine.phase == .flushing)
    }

    @Test func aClientOutsideTheACLOfferingNoAuthenticationIsRefusedAtItsRequest() {
        var script = SessionScript(clientPermitted: false, requiresAuthentication: true)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greetingWithPassword),
                                  .socksBytes(Self.request("a.test", port: 443))])
        #expect(actions.sentBytes == [5, 0] + Self.failed(0x02))
        #expect(!actions.contains(.resolve(host: "a.test")))
    }

    @Test func withAuthenticationOnlyTheUsernamePasswordMethodIsAccepted() {
        var script = SessionScript(requiresAuthentication: true)
        let offered = script.all([.start, .socksVersion(5), .socksBytes(Self.greetingWithPassword)])
        #expect(offered.sentBytes == [5, 2])
        var refusing = SessionScript(requiresAuthentication: true)
        let none = refusing.all([.start, .socksVersion(5), .socksBytes(Self.greeting)])
        #expect(none.sentBytes == [5, 0xFF])
        #expect(refusing.machine.phase == .flushing)
    }

    @Test func acceptedSOCKS5CredentialsLeadToTheRequestAndTheUserIsLogged() {
        var script = SessionScript(requiresAuthentication: true)
        let credentials: [UInt8] = [1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)
        let actions = script.run([.start, .socksVersion(5), .socksBytes(Self.greetingWithPassword), .socksBytes(credentials),
                                  .credentialsChecked("alice", refusal: nil), .socksBytes(Self.request("a.test", port: 443)),
                                  .resolved(["203.0.113.7"]), .ready(), .close])
        #expect(actions[3] == [.consumeClientInput(credentials.count), .verifyCredentials(user: "alice", password: "s3cret")])
        #expect(actions[4] == [.sendToClient([1, 0]), .readNextRequest])
        #expect(script.loggedRequest(at: 8)?.user == "alice")
    }

    @Test func refusedSOCKS5CredentialsAreAnsweredAndTheConnectionCloses() {
        var script = SessionScript(requiresAuthentication: true)
        let credentials: [UInt8] = [1, 5] + Array("alice".utf8) + [5] + Array("wrong".utf8)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(Self.greetingWithPassword), .socksBytes(credentials),
                                  .credentialsChecked("alice", refusal: "wrong password")])
        #expect(Array(actions.sentBytes.suffix(2)) == [1, 1])
        #expect(script.logged?.note.contains("wrong") == false)
        #expect(script.machine.phase == .flushing)
    }

    @Test func aSOCKS4aConnectIsGrantedAndTunnelled() {
        var script = SessionScript()
        let request = Self.socks4a("a.test", port: 443)
        let actions = script.run([.start, .socksVersion(4), .socksBytes(request), .resolved(["203.0.113.7"]), .ready()])
        #expect(actions[2] == [.consumeClientInput(request.count), .resolve(host: "a.test")])
        #expect(actions[4].first == .sendToClient([0, 0x5A, 0, 0, 0, 0, 0, 0]))
        #expect(script.machine.request.method == "SOCKS4")
    }

    @Test func aSOCKS4aFailureIsRejected() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(4), .socksBytes(Self.socks4a("nx.test", port: 443)),
                                  .lookupFailed(.notFound)])
        #expect(actions.sentBytes == [0, 0x5B, 0, 0, 0, 0, 0, 0])
    }

    @Test func socks4IsRefusedWhenPasswordsAreRequired() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .socksVersion(4), .socksBytes(Self.socks4a("a.test", port: 443))])
        #expect(actions.sentBytes == [0, 0x5B, 0, 0, 0, 0, 0, 0])
        #expect(!actions.contains(.resolve(host: "a.test")))
    }

    @Test func aSOCKSVersionByteAfterAnHTTPRequestIsNotSOCKS() {
        var script = SessionScript()
        _ = script.all(SessionScript.sentGet + [.responseHead(Heads.ok()), .responsePumped(.complete, moved: 5)])
        #expect(!script.machine.mayStartSOCKS)
        #expect(script.all([.socksVersion(5)]).isEmpty)
        #expect(script.machine.phase == .readingHead)
    }

    @Test func aStalledNegotiationEndsAtTheHeaderTimeout() {
        var script = SessionScript()
        let actions = script.all([.start, .socksVersion(5), .buffers(BufferLevels(clientInput: 1)), .wait(millis: 10_000), .timer])
        #expect(actions.sentBytes.isEmpty)
        #expect(actions.last == .close)
    }
}
