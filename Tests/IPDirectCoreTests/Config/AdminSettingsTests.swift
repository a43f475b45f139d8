import Testing
@testable import IPDirectCore

/// The `[admin]` section: loopback by default, remote addresses only when asked for.
@Suite struct AdminSettingsTests {
    static func diagnostics(_ text: String) -> [String] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics.map(\.message)
    }

    @Test func listensOnLoopbackByDefault() {
        #expect(Config.defaults.admin.listen.map(\.description) == ["127.0.0.1:8081"])
        #expect(Config.defaults.admin.allowRemote == false)
    }

    @Test func anEmptyListTurnsTheListenerOff() throws {
        let admin = try Config.parse("[admin]\nlisten = []\n").get().admin
        #expect(admin.listen.isEmpty)
        #expect(admin.listenIsExplicit)
    }

    /// A busy built-in address only warns at startup, one the file writes stops it: the two must differ.
    @Test func tellsTheBuiltInAddressFromOneTheFileWrites() throws {
        #expect(Config.defaults.admin.listenIsExplicit == false)
        #expect(try Config.parse("[admin]\nallow_remote = false\n").get().admin.listenIsExplicit == false)
        let written = try Config.parse("[admin]\nlisten = \"127.0.0.1:8081\"\n").get().admin
        #expect(written.listen == Config.defaults.admin.listen)
        #expect(written.listenIsExplicit)
    }

    @Test func acceptsLoopbackAddressesOfBothFamilies() throws {
        let admin = try Config.parse("[admin]\nlisten = [\"127.0.0.2:9000\", \"[::1]:9001\"]\n").get().admin
        #expect(admin.listen.map(\.description) == ["127.0.0.2:9000", "[::1]:9001"])
    }

    @Test func refusesAddressesOffLoopbackUnlessRemoteIsAllowed() throws {
        let messages = Self.diagnostics("[admin]\nlisten = [\"0.0.0.0:8081\", \"127.0.0.1:8082\", \"[::]:8083\"]\n")
        #expect(messages.count == 2)
        #expect(messages.first?.hasPrefix("listen: 0.0.0.0:8081 is not a loopback address") == true)
        let allowed = try Config.parse("[admin]\nlisten = [\"0.0.0.0:8081\"]\nallow_remote = true\n").get().admin
        #expect(allowed.listen.map(\.description) == ["0.0.0.0:8081"])
    }

    @Test func refusesOneAddressOffLoopbackWrittenAsAString() {
        #expect(Self.diagnostics("[admin]\nlisten = \"0.0.0.0:8081\"\n") == [
            "listen: 0.0.0.0:8081 is not a loopback address; the admin API has no authentication (set allow_remote = true to serve it there anyway)",
        ])
    }

    @Test func reportsTheLineOfTheListenKey() throws {
        guard case .failure(let error) = Config.parse("[admin]\nallow_remote = false\nlisten = [\"192.0.2.1:80\"]\n") else {
            Issue.record("a public admin address was accepted")
            return
        }
        #expect(error.diagnostics.map(\.line) == [3])
    }

    @Test func guardsAgainstSlowAndGreedyClientsByDefault() {
        #expect(Config.defaults.admin.headerTimeoutMs == 10_000)
        #expect(Config.defaults.admin.maxConnectionsPerClient == 16)
        #expect(Config.defaults.admin.maxConnectionsPerClient < AdminSettings.maxConnections)
    }

    @Test func readsTheHeadDeadlineInSecondsAndThePerClientCap() throws {
        let admin = try Config.parse("[admin]\nheader_timeout = 2.5\nmax_connections_per_client = 4\n").get().admin
        #expect(admin.headerTimeoutMs == 2_500)
        #expect(admin.maxConnectionsPerClient == 4)
    }

    @Test(arguments: [
        ("header_timeout = 0", "header_timeout: 0 is not a positive number of seconds"),
        ("header_timeout = 301", "header_timeout: 301 seconds is more than the maximum of 300"),
        ("header_timeout = \"10s\"", "header_timeout: expected a number of seconds"),
        ("max_connections_per_client = 0", "max_connections_per_client: 0 is out of range (1-64)"),
        ("max_connections_per_client = 65", "max_connections_per_client: 65 is out of range (1-64)"),
    ])
    func refusesABadGuardSetting(line: String, message: String) {
        let messages = Self.diagnostics("[admin]\n\(line)\n")
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix(message) == true, "\(messages)")
    }
}
