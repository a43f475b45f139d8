import Testing
@testable import IPDirectCore

@Suite struct UpstreamPolicyTests {
    /// The error `policy` refuses with; records an issue and returns nil when it permits an address.
    static func refusal(_ policy: UpstreamPolicy, _ resolution: Resolution, host: String, port: UInt16) -> ProxyError? {
        switch policy.permittedAddresses(resolution, host: host, port: port) {
        case .failure(let error): return error
        case .success(let addresses):
            Issue.record("\(addresses) permitted for \(HostName.withPort(host, port)) from \(resolution.source)")
            return nil
        }
    }

    let strict = UpstreamPolicy(allowPrivateUpstreams: false, connectPorts: [443, 8443], ownEndpoints: OwnEndpoints())

    @Test func refusesNamesThatResolveOnlyToPrivateAddresses() {
        let resolution = Resolution(addresses: [IPAddress("10.0.0.1")!, IPAddress("::1")!], source: .system)
        guard let error = Self.refusal(strict, resolution, host: "evil.test", port: 80) else { return }
        #expect(error.status == 403)
        #expect(error.kind == .destinationIPProhibited)
        #expect(error.details.contains("evil.test"))
    }

    @Test func dropsPrivateAddressesButKeepsPublicOnes() throws {
        let resolution = Resolution(addresses: [IPAddress("192.168.1.1")!, IPAddress("203.0.113.7")!], source: .system)
        #expect(try strict.permittedAddresses(resolution, host: "mixed.test", port: 80).get() == [IPAddress("203.0.113.7")!])
    }

    @Test func trustsHostsEntriesAndTheAllowSwitch() throws {
        let pinned = Resolution(addresses: [IPAddress("127.0.0.1")!], source: .hosts)
        #expect(try strict.permittedAddresses(pinned, host: "a.test", port: 80).get() == [IPAddress("127.0.0.1")!])
        let open = UpstreamPolicy(allowPrivateUpstreams: true, connectPorts: [], ownEndpoints: OwnEndpoints())
        let system = Resolution(addresses: [IPAddress("127.0.0.1")!], source: .system)
        #expect(try open.permittedAddresses(system, host: "a.test", port: 80).get() == [IPAddress("127.0.0.1")!])
    }

    @Test func permitsTunnelsOnlyToListedPorts() {
        #expect(strict.permitsTunnel(toPort: 443))
        #expect(!strict.permitsTunnel(toPort: 22))
    }

    @Test func refusesTheDaemonsOwnListenersEvenWhenPrivateAddressesAreAllowedOrPinned() {
        var own = OwnEndpoints()
        own.add(.admin, [SocketAddress("127.0.0.1:9901")!])
        let open = UpstreamPolicy(allowPrivateUpstreams: true, connectPorts: [], ownEndpoints: own)
        for source in [ResolutionSource.hosts, .system, .literal] {
            let resolution = Resolution(addresses: [IPAddress("127.0.0.1")!], source: source)
            guard let error = Self.refusal(open, resolution, host: "localhost", port: 9901) else { continue }
            #expect(error.status == 403)
            #expect(error.kind == .destinationIPProhibited)
            #expect(error.details.contains("localhost:9901"))
            #expect(error.details.contains("listener=admin 127.0.0.1:9901"))
        }
    }

    @Test func keepsOtherAddressesOfANameThatAlsoLeadsToAnOwnListener() throws {
        var own = OwnEndpoints()
        own.add(.proxy, [SocketAddress("0.0.0.0:3128")!])
        let open = UpstreamPolicy(allowPrivateUpstreams: true, connectPorts: [], ownEndpoints: own)
        let resolution = Resolution(addresses: [IPAddress("127.0.0.1")!, IPAddress("203.0.113.7")!], source: .system)
        #expect(try open.permittedAddresses(resolution, host: "both.test", port: 3128).get() == [IPAddress("203.0.113.7")!])
        #expect(try open.permittedAddresses(resolution, host: "both.test", port: 80).get() == resolution.addresses)
    }
}
