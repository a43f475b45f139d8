import Testing
@testable import IPDirectCore

/// Which destinations reach one of the daemon's own listeners: the exact address, and for a wildcard
/// listener every local address.
@Suite struct OwnEndpointsTests {
    static let endpoints: OwnEndpoints = {
        var own = OwnEndpoints(interfaceAddresses: [IPAddress("192.0.2.10")!, IPAddress("2001:db8::10")!])
        own.add(.proxy, [SocketAddress("127.0.0.1:3128")!, SocketAddress("[::1]:3128")!])
        own.add(.admin, [SocketAddress("0.0.0.0:9901")!])
        own.add(.proxy, [SocketAddress("[::]:1080")!])
        own.add(.proxy, [SocketAddress("198.51.100.5:8080")!])
        return own
    }()

    @Test(arguments: [
        // Exact addresses, and the forms the kernel delivers to them.
        ("127.0.0.1:3128", "proxy 127.0.0.1:3128"), ("[::1]:3128", "proxy [::1]:3128"),
        ("[::ffff:127.0.0.1]:3128", "proxy 127.0.0.1:3128"), ("0.0.0.0:3128", "proxy 127.0.0.1:3128"),
        ("[::]:3128", "proxy [::1]:3128"), ("198.51.100.5:8080", "proxy 198.51.100.5:8080"),
        // A wildcard listener on every loopback and interface address of its family.
        ("127.0.0.1:9901", "admin 0.0.0.0:9901"), ("127.8.9.10:9901", "admin 0.0.0.0:9901"),
        ("0.0.0.0:9901", "admin 0.0.0.0:9901"), ("192.0.2.10:9901", "admin 0.0.0.0:9901"),
        ("[::ffff:192.0.2.10]:9901", "admin 0.0.0.0:9901"),
        // :: covers IPv6 and, as a dual-stack socket may, IPv4.
        ("[::1]:1080", "proxy [::]:1080"), ("[2001:db8::10]:1080", "proxy [::]:1080"),
        ("127.0.0.1:1080", "proxy [::]:1080"), ("192.0.2.10:1080", "proxy [::]:1080"),
    ])
    func destinationsThatReachAnOwnListener(destination: String, listener: String) {
        #expect(Self.endpoints.listener(reachedBy: SocketAddress(destination)!)?.description == listener)
    }

    @Test(arguments: [
        // Another address or port.
        "127.0.0.2:3128", "10.0.0.1:3128", "127.0.0.1:3129", "198.51.100.6:8080",
        // A wildcard listener is not reached on addresses of other machines, nor 0.0.0.0 on IPv6.
        "203.0.113.7:9901", "[::1]:9901", "[2001:db8::11]:1080", "203.0.113.7:1080",
    ])
    func destinationsThatReachNoOwnListener(destination: String) {
        #expect(Self.endpoints.listener(reachedBy: SocketAddress(destination)!) == nil)
    }

    @Test func onlyPortsWithAListenerNeedTheAddressCheck() {
        #expect(Self.endpoints.anyListens(onPort: 9901))
        #expect(!Self.endpoints.anyListens(onPort: 443))
    }
}
