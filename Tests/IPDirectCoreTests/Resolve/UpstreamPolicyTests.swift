import Testing
@testable import IPDirectCore

@Suite struct UpstreamPolicyTests {
    let strict = UpstreamPolicy(allowPrivateUpstreams: false, connectPorts: [443, 8443])

    @Test func refusesNamesThatResolveOnlyToPrivateAddresses() {
        let resolution = Resolution(addresses: [IPAddress("10.0.0.1")!, IPAddress("::1")!], source: .system)
        guard case .failure(let error) = strict.permittedAddresses(resolution, host: "evil.test") else {
            Issue.record("private addresses were permitted")
            return
        }
        #expect(error.status == 403)
        #expect(error.kind == .destinationIPProhibited)
        #expect(error.details.contains("evil.test"))
    }

    @Test func dropsPrivateAddressesButKeepsPublicOnes() throws {
        let resolution = Resolution(addresses: [IPAddress("192.168.1.1")!, IPAddress("203.0.113.7")!], source: .system)
        #expect(try strict.permittedAddresses(resolution, host: "mixed.test").get() == [IPAddress("203.0.113.7")!])
    }

    @Test func trustsHostsEntriesAndTheAllowSwitch() throws {
        let pinned = Resolution(addresses: [IPAddress("127.0.0.1")!], source: .hosts)
        #expect(try strict.permittedAddresses(pinned, host: "a.test").get() == [IPAddress("127.0.0.1")!])
        let open = UpstreamPolicy(allowPrivateUpstreams: true, connectPorts: [])
        let system = Resolution(addresses: [IPAddress("127.0.0.1")!], source: .system)
        #expect(try open.permittedAddresses(system, host: "a.test").get() == [IPAddress("127.0.0.1")!])
    }

    @Test func permitsTunnelsOnlyToListedPorts() {
        #expect(strict.permitsTunnel(toPort: 443))
        #expect(!strict.permitsTunnel(toPort: 22))
    }
}
