import Testing
@testable import IPDirectCore

/// Every key that lists addresses takes one address as a plain string too, as people write it for a
/// single address, and still refuses a bad one on its line.
@Suite struct ConfigReaderTests {
    /// One address-list key: the lines before it, how to read its value back, and one bad spelling.
    struct AddressKey: Sendable, CustomStringConvertible {
        var name: String
        /// The table header and any keys the key needs next to it; the key goes on the line after.
        var before: String
        var read: @Sendable (Config) -> [String]
        var one: String
        var oneRead: String
        var two: [String]
        var bad: String
        var badMessage: String

        var description: String { name }
        /// The line the key is written on.
        var line: Int { before.split(separator: "\n", omittingEmptySubsequences: false).count + 1 }

        func text(_ value: String) -> String { before + "\n" + name.split(separator: ".").last! + " = " + value + "\n" }
    }

    static let provider = "[[resolver.httpdns]]\nname = \"p\"\nformat = \"doh\"\nurl = \"https://doh.example/dns-query\""

    static let keys: [AddressKey] = [
        AddressKey(name: "proxy.listen", before: "[proxy]", read: { $0.proxy.listen.map(\.description) },
                   one: "127.0.0.1:3128", oneRead: "127.0.0.1:3128", two: ["127.0.0.1:3128", "[::1]:3128"],
                   bad: "localhost:3128",
                   badMessage: "listen: 'localhost:3128' is not an address with a port, such as 127.0.0.1:8080 or [::1]:8080"),
        AddressKey(name: "admin.listen", before: "[admin]", read: { $0.admin.listen.map(\.description) },
                   one: "127.0.0.1:9000", oneRead: "127.0.0.1:9000", two: ["127.0.0.1:9000", "[::1]:9000"],
                   bad: "127.0.0.1",
                   badMessage: "listen: '127.0.0.1' is not an address with a port, such as 127.0.0.1:8080 or [::1]:8080"),
        AddressKey(name: "resolver.system_nameservers", before: "[resolver]",
                   read: { $0.resolver.systemNameservers.map(\.description) },
                   one: "192.0.2.53", oneRead: "192.0.2.53:53", two: ["192.0.2.53", "[2001:db8::53]:5353"],
                   bad: "ns1.example",
                   badMessage: "system_nameservers: 'ns1.example' is not an IP address with an optional port, such as 192.0.2.53 or [2001:db8::53]:5353"),
        AddressKey(name: "resolver.httpdns.bootstrap", before: provider,
                   read: { $0.resolver.httpdns.first?.bootstrap.map(\.description) ?? [] },
                   one: "192.0.2.1", oneRead: "192.0.2.1", two: ["192.0.2.1", "2001:db8::1"],
                   bad: "doh.example",
                   badMessage: "httpdns: bootstrap: 'doh.example' is not an IP address (bootstrap addresses are never looked up through DNS)"),
    ]

    static func diagnostics(_ text: String) -> [ConfigDiagnostic] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics
    }

    @Test(arguments: keys)
    func readsOneAddressWrittenAsAString(key: AddressKey) throws {
        let config = try Config.parse(key.text("\"\(key.one)\"")).get()
        #expect(key.read(config) == [key.oneRead])
    }

    @Test(arguments: keys)
    func readsAnArrayOfAddresses(key: AddressKey) throws {
        let array = "[" + key.two.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        let config = try Config.parse(key.text(array)).get()
        #expect(key.read(config).count == 2)
    }

    @Test(arguments: keys)
    func refusesABadAddressWrittenAsAStringOnItsLine(key: AddressKey) {
        #expect(Self.diagnostics(key.text("\"\(key.bad)\"")) == [ConfigDiagnostic(line: key.line, message: key.badMessage)])
    }

    @Test(arguments: keys)
    func refusesABadAddressInAnArrayOnItsLine(key: AddressKey) {
        let line = key.line + 2  // the second element, on a line of its own
        let text = key.text("[\n  \"\(key.one)\",\n  \"\(key.bad)\",\n]")
        #expect(Self.diagnostics(text) == [ConfigDiagnostic(line: line, message: key.badMessage)])
    }

    @Test(arguments: keys)
    func refusesAValueThatIsNeitherAStringNorAnArray(key: AddressKey) {
        let prefix = key.name.hasPrefix("resolver.httpdns") ? "httpdns: " : ""
        let keyName = String(key.name.split(separator: ".").last!)
        #expect(Self.diagnostics(key.text("8080")) == [ConfigDiagnostic(
            line: key.line, message: "\(prefix)\(keyName): expected an address or an array of addresses, found an integer")])
    }
}
