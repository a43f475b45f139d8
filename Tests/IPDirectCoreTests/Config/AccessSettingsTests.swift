import Testing
@testable import IPDirectCore

/// The `[access]` keys that decide who may use the proxy: `clients` and `auth_file`.
@Suite struct AccessSettingsTests {
    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    @Test func servesTheLocalNetworksWithoutLoginsByDefault() {
        #expect(Config.defaults.access.clients == .localNetworks)
        #expect(Config.defaults.access.authFile == nil)
    }

    @Test func readsOnePrefixWrittenAsAString() throws {
        let access = try Config.parse("[access]\nclients = \"192.168.1.0/24\"\n").get().access
        #expect(access.clients.description == "192.168.1.0/24")
    }

    @Test func readsAListOfPrefixesAndBareAddressesOfBothFamilies() throws {
        let access = try Config.parse("[access]\nclients = [\"10.0.0.0/8\", \"192.0.2.7\", \"fd00::/8\", \"::1\"]\n").get().access
        #expect(access.clients.description == "10.0.0.0/8,192.0.2.7/32,fd00::/8,::1/128")
    }

    @Test func reportsABadPrefixOnItsOwnLine() {
        let text = "[access]\nclients = [\n  \"10.0.0.0/8\",\n  \"10.1.0.0/33\",\n  \"192.168.1.5/24\",\n]\n"
        #expect(Self.diagnostics(text) == [
            ConfigDiagnostic(line: 4, message: "clients: '10.1.0.0/33': the prefix length must be 0-32"),
            ConfigDiagnostic(line: 5, message: "clients: '192.168.1.5/24' has bits set past the prefix length; the network is 192.168.1.0/24"),
        ])
    }

    @Test func refusesAnEmptyListADuplicateAndOtherTypes() {
        #expect(Self.diagnostics("[access]\nclients = []\n").map(\.message) == ["clients: must list at least one value"])
        #expect(Self.diagnostics("[access]\nclients = [\"::1\", \"::1/128\"]\n").map(\.message)
            == ["clients: ::1/128 is listed twice (first on line 2)"])
        #expect(Self.diagnostics("[access]\nclients = 10\n").map(\.message)
            == ["clients: expected a prefix or an array of prefixes, found an integer"])
    }

    @Test func readsTheAuthFilePath() throws {
        let access = try Config.parse("[access]\nauth_file = \"/etc/ipdirect/htpasswd\"\n").get().access
        #expect(access.authFile == "/etc/ipdirect/htpasswd")
        #expect(Self.diagnostics("[access]\nauth_file = \"\"\n").map(\.message) == ["auth_file: must not be empty"])
    }
}
