import Testing
@testable import IPDirectCore

/// Which Host and Origin values name the admin listener, so a web page cannot reach it under a name of
/// its own (DNS rebinding) or act on it from another origin.
@Suite struct AdminAuthorityTests {
    static let listener = SocketAddress("127.0.0.1:8081")!
    static let loopbackListener = AdminAuthority(listening: [listener], arrivedOn: listener)

    @Test(arguments: [
        ("127.0.0.1:8081", true),
        ("127.0.0.1", true),
        ("localhost", true),
        ("localhost:8081", true),
        ("LocalHost:8081", true),
        ("[::1]:8081", true),
        ("[0:0:0:0:0:0:0:1]:8081", true),
        ("[::1]", true),
        // Another port names another origin; Origin is held to the same rule.
        ("127.0.0.1:8082", false),
        ("localhost:8082", false),
        ("[::1]:8082", false),
        ("evil.example", false),
        ("evil.example:8081", false),
        ("127.0.0.1.evil.example", false),
        ("127.0.0.1.evil.example:8081", false),
        ("localhost.evil.example:8081", false),
        ("localhost.:8081", false),
        ("127.0.0.2:8081", false),
        ("0.0.0.0:8081", false),
        ("192.0.2.1:8081", false),
        ("", false),
        ("127.0.0.1:", false),
        ("user@127.0.0.1:8081", false),
    ])
    func hostNamesTheListenerOnlyByItsAddressOrLocalhostWithItsPort(host: String, allowed: Bool) {
        #expect(Self.loopbackListener.isOwnHost(host) == allowed)
    }

    @Test(arguments: [
        ("192.0.2.10:8081", true),
        ("192.0.2.10", true),
        ("localhost:8081", true),
        ("127.0.0.1:8081", true),
        // A page can load http://0.0.0.0:8081/, which reaches loopback on Linux.
        ("0.0.0.0:8081", false),
        ("0.0.0.0", false),
        ("192.0.2.11:8081", false),
        ("[::]:8081", false),
    ])
    func aWildcardListenerIsNamedByTheAddressTheConnectionArrivedOn(host: String, allowed: Bool) {
        let authority = AdminAuthority(listening: [SocketAddress("0.0.0.0:8081")!, SocketAddress("[::]:8081")!],
                                       arrivedOn: SocketAddress("192.0.2.10:8081")!)
        #expect(authority.isOwnHost(host) == allowed)
    }

    @Test(arguments: [
        ("[::1]:9091", true),
        ("[::1]", true),
        ("[::1]:8081", true),
        ("127.0.0.1:9091", false),
        ("localhost:9091", false),
    ])
    func eachListenAddressKeepsItsOwnPort(host: String, allowed: Bool) {
        let authority = AdminAuthority(listening: [Self.listener, SocketAddress("[::1]:9091")!], arrivedOn: Self.listener)
        #expect(authority.isOwnHost(host) == allowed)
    }

    @Test(arguments: [
        ("http://127.0.0.1:8081", true),
        ("http://localhost:8081", true),
        ("http://[::1]:8081", true),
        ("HTTP://LOCALHOST:8081", true),
        // RFC 6454 §6.1 leaves out only the default port: this is port 80, another origin.
        ("http://127.0.0.1", false),
        ("http://localhost", false),
        ("http://127.0.0.1:8082", false),
        ("https://127.0.0.1:8081", false),
        ("http://evil.example", false),
        ("http://evil.example:8081", false),
        ("http://127.0.0.1.evil.example:8081", false),
        ("http://127.0.0.1:8081/", false),
        ("http://", false),
        ("127.0.0.1:8081", false),
        ("null", false),
        ("", false),
    ])
    func originIsOwnOnlyAsPlainHTTPWithTheListenersNameAndPort(origin: String, own: Bool) {
        #expect(Self.loopbackListener.isOwnOrigin(origin) == own)
    }

    @Test func anOriginWithoutPortIsOwnForAListenerOnPort80() {
        let listener = SocketAddress("127.0.0.1:80")!
        let authority = AdminAuthority(listening: [listener], arrivedOn: listener)
        #expect(authority.isOwnOrigin("http://127.0.0.1"))
        #expect(authority.isOwnOrigin("http://localhost:80"))
        #expect(!authority.isOwnOrigin("http://127.0.0.1:8081"))
    }
}
