import Testing
@testable import IPDirectCore

@Suite struct SocketAddressTests {
    @Test func parsesSocketAddresses() {
        #expect(SocketAddress("127.0.0.1:8080")?.description == "127.0.0.1:8080")
        #expect(SocketAddress("[::1]:443")?.description == "[::1]:443")
        #expect(SocketAddress("::1:443") == nil)
        #expect(SocketAddress("127.0.0.1") == nil)
        #expect(SocketAddress("127.0.0.1:70000") == nil)
    }
}
