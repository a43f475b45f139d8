import Testing
@testable import IPDirectCore

/// `[transparent]` is off by default, reads every key, and refuses settings whose rules could not reach the
/// listener.
@Suite struct TransparentSettingsTests {
    static func problems(_ text: String) -> [String] {
        switch Config.parse(text) {
        case .success: return []
        case .failure(let error): return error.diagnostics.map(\.message)
        }
    }

    @Test func isOffByDefault() {
        #expect(!Config().transparent.isEnabled)
        #expect(Config().transparent.ports == [80, 443] && Config().transparent.sniffTimeoutMs == 1_000)
    }

    @Test func readsEveryKey() throws {
        let config = try Config.parse("""
            [dns]
            listen = "0.0.0.0:5353"
            [transparent]
            listen = ["0.0.0.0:8443", "[::]:8443"]
            ports = [443]
            sniff_timeout = 0.25
            mode = "observe"
            unsniffed = "reset"
            exempt_user = "proxyuser"
            interfaces = ["eth1"]
            direct = ["10.0.0.0/8"]
            redirect_dns = true
            reject_quic = true
            """).get()
        let settings = config.transparent
        #expect(settings.isEnabled && settings.listen.count == 2 && settings.ports == [443])
        #expect(settings.sniffTimeoutMs == 250 && settings.mode == .observe && settings.unsniffed == .reset)
        #expect(settings.exemptUser == "proxyuser" && settings.interfaces == ["eth1"] && settings.direct == [IPPrefix("10.0.0.0/8")!])
        #expect(settings.redirectDNS && settings.rejectQUIC)
    }

    @Test(arguments: [
        ("listen = [\"127.0.0.1:8443\", \"127.0.0.1:9443\"]", "same port"),
        ("listen = \"192.0.2.1:8443\"", "127.0.0.1 or ::1"),
        ("listen = \"127.0.0.1:8443\"\ninterfaces = [\"eth1\"]", "0.0.0.0"),
        ("listen = \"127.0.0.1:8443\"\nredirect_dns = true", "[dns] listen is empty"),
        ("listen = \"127.0.0.1:8080\"", "port of [proxy] listen"),
        ("listen = \"127.0.0.1:8443\"\nexempt_user = \"Root!\"", "not a user name"),
        ("listen = \"127.0.0.1:8443\"\ninterfaces = [\"a very long interface\"]", "not an interface name"),
        ("listen = \"127.0.0.1:8443\"\nports = []", "ports"),
        ("listen = \"127.0.0.1:8443\"\nmode = \"sometimes\"", "mode"),
        ("listen = \"127.0.0.1:0\"", "port 0"),
    ])
    func refusesSettingsTheRulesCannotServe(lines: String, expected: String) {
        let problems = Self.problems("[transparent]\n\(lines)\n")
        #expect(problems.contains { $0.contains(expected) }, "\(problems)")
    }

    @Test(arguments: [
        ("listen = \"192.0.2.53:53\"", "", "127.0.0.1 or ::1"),
        ("listen = \"127.0.0.1:0\"", "", "port 0"),
        ("listen = \"127.0.0.1:5353\"", "interfaces = [\"eth1\"]", "arrive at the interface's own address"),
    ])
    func refusesADNSRedirectThatWouldReachNoListener(dns: String, extra: String, expected: String) {
        let problems = Self.problems("[dns]\n\(dns)\n[transparent]\nlisten = \"0.0.0.0:8443\"\nredirect_dns = true\n\(extra)\n")
        #expect(problems.contains { $0.contains(expected) }, "\(problems)")
    }
}
