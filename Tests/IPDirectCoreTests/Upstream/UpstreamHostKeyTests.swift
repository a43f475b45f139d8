import Testing
@testable import IPDirectCore

@Suite struct UpstreamHostKeyTests {
    @Test func keysOfTheSameHostAndPortAreOneKey() {
        let table: [UpstreamHostKey: Int] = [UpstreamHostKey(host: "a.test", port: 443): 1]
        #expect(table[UpstreamHostKey(host: "a.test", port: 443)] == 1)
        #expect(UpstreamHostKey(host: String("a.tes") + "t", port: 443) == UpstreamHostKey(host: "a.test", port: 443))
    }

    @Test func anotherHostOrPortIsAnotherKey() {
        let key = UpstreamHostKey(host: "a.test", port: 443)
        #expect(key != UpstreamHostKey(host: "b.test", port: 443))
        #expect(key != UpstreamHostKey(host: "a.test", port: 80))
        let table: [UpstreamHostKey: Int] = [key: 1, UpstreamHostKey(host: "a.test", port: 80): 2]
        #expect(table.count == 2)
        #expect(table[UpstreamHostKey(host: "a.test", port: 80)] == 2)
    }

    @Test func aPoolKeyMadeFromARequestsKeyMatchesOneMadeFromItsParts() {
        let request = ProxyRequest(method: "GET", methodKind: .get, scheme: .https, host: "a.test", port: 8443,
                                   isConnect: false, keepAlive: true, upgradeRequested: false, clientVersion: .http11,
                                   startMicros: 0)
        #expect(request.poolKey == UpstreamPoolKey(scheme: .https, host: "a.test", port: 8443))
        #expect(request.poolKey != UpstreamPoolKey(scheme: .http, host: "a.test", port: 8443))
        #expect(request.hostKey == UpstreamHostKey(host: "a.test", port: 8443))
    }

    @Test func aRequestThatNamesNoUpstreamHasTheSharedKeyOfNowhere() {
        let unparsed = ProxyRequest(method: "-", methodKind: .other, host: "-", port: 0, isConnect: false,
                                    keepAlive: false, upgradeRequested: false, clientVersion: .http11, startMicros: 0)
        #expect(unparsed.hostKey == .nowhere)
        #expect(unparsed.hostKey == UpstreamHostKey(host: "-", port: 0))
        #expect(unparsed.host == "-" && unparsed.port == 0)
    }
}
