import Testing
@testable import IPDirectCore

/// The client ACL and proxy authentication on HTTP requests.
@Suite struct SessionMachineAccessTests {
    @Test func aClientOutsideTheACLIsRefusedWith403AndTheConnectionCloses() {
        var script = SessionScript(clientPermitted: false)
        let actions = script.all([.start, .head(Heads.get())])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(actions.sentText.contains("access.clients"))
        #expect(actions.sentText.contains("Connection: close\r\n"))
        #expect(!actions.contains(.resolve(host: "a.test")))
        #expect(script.logged?.status == 403)
        #expect(script.machine.phase == .flushing)
    }

    @Test func aClientOutsideTheACLGetsNoPACFileEither() {
        var script = SessionScript(clientPermitted: false)
        let actions = script.all([.start, .head("GET /proxy.pac HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 "))
        #expect(!actions.contains(.lookUpListenerAddress))
    }

    @Test func aRequestWithoutCredentialsIsAnswered407WithAChallenge() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head(Heads.get())])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 Proxy Authentication Required\r\n"))
        #expect(actions.sentText.contains("Proxy-Authenticate: Basic realm=\"ipdirect\", charset=\"UTF-8\"\r\n"))
        #expect(actions.last == .readNextRequest)
    }

    @Test func credentialsAreCheckedBeforeTheLookupAndTheUserIsLogged() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.run([.start, .head(Heads.get(fields: Heads.aliceCredentials)),
                                  .credentialsChecked("alice", refusal: nil), .resolved(["203.0.113.7"]), .ready(),
                                  .requestPumped(.complete, moved: 0), .responseHead(Heads.ok()),
                                  .responsePumped(.complete, moved: 5)])
        #expect(actions[1] == [.cancelTimer, .verifyCredentials(user: "alice", password: "s3cret:word")])
        #expect(script.machine.phase == .readingHead)
        #expect(actions[2] == [.resolve(host: "a.test")])
        #expect(actions[4].forwardedRequest?.contains("Proxy-Authorization") == false)
        #expect(script.loggedRequest(at: 7)?.user == "alice")
    }

    @Test func refusedCredentialsAre407AndNeverNameThePassword() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head(Heads.get(fields: Heads.aliceCredentials)),
                                  .credentialsChecked("alice", refusal: "wrong password")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 "))
        #expect(actions.sentText.contains("alice"))
        #expect(!actions.sentText.contains("s3cret"))
        #expect(script.logged?.note.contains("s3cret") == false)
    }

    @Test(arguments: ["Proxy-Authorization: Digest username=\"alice\"\r\n",
                      "Proxy-Authorization: Basic !!!!\r\n",
                      "Proxy-Authorization: Basic YWxpY2U=\r\n",
                      Heads.aliceCredentials + Heads.aliceCredentials])
    func unusableCredentialsAre407WithoutACheck(field: String) {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head(Heads.get(fields: field))])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 "))
        #expect(!actions.contains { if case .verifyCredentials = $0 { return true } else { return false } })
    }

    @Test func aConnectWithCredentialsIsTunnelledOnceTheyAreAccepted() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\(Heads.aliceCredentials)\r\n"),
                                  .credentialsChecked("alice", refusal: nil), .resolved(["203.0.113.7"]), .ready()])
        #expect(actions.sentText == "HTTP/1.1 200 Connection Established\r\n\r\n")
        #expect(script.machine.phase == .tunneling)
    }

    // connect_ports is answered only to a client that is let in: before, a 403 for one port and a 407 for
    // another would tell anyone without a login which ports are open.

    static let connectToPort25 = "CONNECT a.test:25 HTTP/1.1\r\nHost: a.test:25\r\n"

    @Test func aConnectToAClosedPortWithoutCredentialsIsAskedForTheLoginFirst() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head(Self.connectToPort25 + "\r\n")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 Proxy Authentication Required\r\n"))
        #expect(!actions.sentText.contains("connect_ports"))
    }

    @Test func aConnectToAClosedPortWithRefusedCredentialsIsStill407() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .head(Self.connectToPort25 + Heads.aliceCredentials + "\r\n"),
                                  .credentialsChecked("alice", refusal: "wrong password")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 407 "))
        #expect(!actions.sentText.contains("connect_ports"))
    }

    @Test func aConnectToAClosedPortIsRefusedOnceTheCredentialsAreAccepted() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.run([.start, .head(Self.connectToPort25 + Heads.aliceCredentials + "\r\n"),
                                  .credentialsChecked("alice", refusal: nil)])
        #expect(actions[1] == [.cancelTimer, .verifyCredentials(user: "alice", password: "s3cret:word")])
        #expect(actions[2].sentText.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(actions[2].sentText.contains("access.connect_ports"))
        #expect(!actions[2].contains(.resolve(host: "a.test")))
    }

    @Test func aClientOutsideTheACLIsRefusedAsSuchWhateverThePort() {
        var script = SessionScript(clientPermitted: false)
        let actions = script.all([.start, .head(Self.connectToPort25 + "\r\n")])
        #expect(actions.sentText.hasPrefix("HTTP/1.1 403 "))
        #expect(actions.sentText.contains("access.clients"))
        #expect(!actions.sentText.contains("connect_ports"))
    }

    @Test func aSOCKS5ClientWithoutALoginNeverReachesThePortCheck() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(SessionMachineSOCKSTests.greeting),
                                  .socksBytes(SessionMachineSOCKSTests.request("a.test", port: 25))])
        #expect(actions.sentBytes == [5, 0xFF])
        #expect(script.logged?.status == 407)
    }

    @Test func aSOCKS5ConnectToAClosedPortIsRefusedAfterTheLogin() {
        var script = SessionScript(requiresAuthentication: true)
        let login: [UInt8] = [1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)
        let actions = script.all([.start, .socksVersion(5), .socksBytes(SessionMachineSOCKSTests.greetingWithPassword),
                                  .socksBytes(login), .credentialsChecked("alice", refusal: nil),
                                  .socksBytes(SessionMachineSOCKSTests.request("a.test", port: 25))])
        #expect(Array(actions.sentBytes.suffix(10)) == SessionMachineSOCKSTests.failed(0x02))
        #expect(script.logged?.note.contains("access.connect_ports") == true)
    }

    @Test func theCredentialCheckIsAbandonedWhenTheClientGoes() {
        var script = SessionScript(requiresAuthentication: true)
        let actions = script.run([.start, .head(Heads.get(fields: Heads.aliceCredentials)), .clientError("connection reset"),
                                  .credentialsChecked("alice", refusal: nil)])
        #expect(actions[2].last == .close)
        #expect(actions[3] == [])
    }
}
