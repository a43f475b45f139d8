import Testing
@testable import IPDirectCore

/// When `ipdirect check` and startup warn that anyone may use the proxy.
@Suite struct OpenProxyWarningTests {
    let anyIPv4 = SocketAddress("0.0.0.0:8080")!
    let anyIPv6 = SocketAddress("[::]:8080")!
    let loopback = SocketAddress("127.0.0.1:8080")!
    let loopbackIPv6 = SocketAddress("[::1]:8080")!

    @Test func aLoopbackListenerIsNeverOpen() {
        #expect(OpenProxyWarning.find(listen: [loopback, loopbackIPv6], access: AccessSettings()).isEmpty)
    }

    @Test func warnsForEachListenerOffLoopbackWithNeitherLoginsNorANarrowerClientList() {
        let warnings = OpenProxyWarning.find(listen: [loopback, anyIPv4, anyIPv6], access: AccessSettings())
        #expect(warnings.map(\.listen) == [anyIPv4, anyIPv6])
        #expect(warnings.first?.description
            == "event=open_proxy_warning listen=0.0.0.0:8080 reason=\"no auth_file, and clients is the default: every host on loopback and the private networks may use this proxy\" note=\"set [access] auth_file or a narrower clients list\"")
    }

    @Test func anAuthFileClosesTheProxy() {
        var access = AccessSettings()
        access.authFile = "/etc/ipdirect/htpasswd"
        #expect(OpenProxyWarning.find(listen: [anyIPv4], access: access).isEmpty)
    }

    @Test func aClientListNarrowerThanTheDefaultClosesTheProxy() throws {
        var access = AccessSettings()
        access.clients = ClientAccessList([try #require(IPPrefix("192.168.1.0/24"))])
        #expect(OpenProxyWarning.find(listen: [anyIPv4], access: access).isEmpty)
    }

    @Test func aClientListReachingBeyondTheDefaultIsOpenToo() throws {
        var access = AccessSettings()
        access.clients = ClientAccessList([try #require(IPPrefix("192.168.1.0/24")), try #require(IPPrefix("198.51.100.0/24"))])
        let warnings = OpenProxyWarning.find(listen: [anyIPv4], access: access)
        #expect(warnings.map(\.reason) == ["no auth_file, and clients is not narrower than the default loopback and private networks"])
    }
}
