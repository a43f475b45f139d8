import Testing
@testable import IPDirectCore

/// The request value: what later facts make of it, and the keys derived from it.
@Suite struct ProxyRequestTests {
    static let request = ProxyRequest(method: "GET", methodKind: .get, scheme: .https, host: "a.test", port: 8443,
                                      isConnect: false, keepAlive: true, upgradeRequested: true,
                                      clientVersion: .http10, hasBody: true, startMicros: 42)

    @Test func acceptedCredentialsMakeANewRequestThatDiffersOnlyInTheUser() {
        let authenticated = Self.request.authenticated(as: "alice")
        #expect(authenticated.user == "alice")
        #expect(Self.request.user == nil)
        #expect(authenticated == ProxyRequest(method: "GET", methodKind: .get, scheme: .https, host: "a.test", port: 8443,
                                              isConnect: false, user: "alice", keepAlive: true, upgradeRequested: true,
                                              clientVersion: .http10, hasBody: true, startMicros: 42))
    }

    @Test func aSOCKSRequestLearnsItsDestinationAsANewValue() {
        let negotiating = ProxyRequest.socks(.socks5, at: 7).authenticated(as: "bob")
        let going = negotiating.going(to: "b.test", port: 443)
        #expect(negotiating.hostPort == "-")
        #expect(going.hostPort == "b.test:443")
        #expect(going.method == "SOCKS5" && going.frontEnd == .socks5 && going.isConnect)
        #expect(going.user == "bob" && going.startMicros == 7)
    }

    @Test func connectionsArePooledBySchemeHostAndPort() {
        #expect(Self.request.poolKey == UpstreamPoolKey(scheme: .https, host: "a.test", port: 8443))
        #expect(Self.request.poolKey.description == "https://a.test:8443")
        #expect(Self.request.hostKey == UpstreamHostKey(host: "a.test", port: 8443))
        #expect(ProxyRequest.unparsed(at: 0).hostPort == "-")
    }
}
