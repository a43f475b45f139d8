import Testing
@testable import IPDirectCore

/// config/ipdirect.toml and the configuration reference (docs/configuration.md) stay in step with the schema.
@Suite struct ExampleConfigurationTests {
    /// Every key of every keyed section, as `(section, key)`; an array of tables such as `tls.pin`
    /// is a key of its section and a section of its own.
    static var schemaKeys: [(String, String)] {
        ProxySettings.configKeys.map { ("proxy", $0.name) }
            + ResolverSettings.configKeys.map { ("resolver", $0.name) }
            + AccessSettings.configKeys.map { ("access", $0.name) }
            + UpstreamSettings.configKeys.map { ("upstream", $0.name) }
            + TLSSettings.configKeys.map { ("tls", $0.name) }
            + AdminSettings.configKeys.map { ("admin", $0.name) }
            + PACSettings.configKeys.map { ("pac", $0.name) }
            + DNSSettings.configKeys.map { ("dns", $0.name) }
            + TransparentSettings.configKeys.map { ("transparent", $0.name) }
            + TLSPinTable.configKeys.map { ("tls.pin", $0.name) }
            + HTTPDNSProviderTable.configKeys.map { ("resolver.httpdns", $0.name) }
    }

    /// Arrays of tables, written `[[name]]`.
    static let tableArrays = ["tls.pin", "resolver.httpdns", "upstream.balance_rule", "upstream.probe"]

    /// The file spells out what ipdirect runs on without one: the defaults and the built-in providers.
    @Test func exampleFileParsesWithoutDiagnosticsToTheBuiltInConfiguration() throws {
        let text = try #require(PackageFiles.read("config/ipdirect.toml"))
        let result = Config.parse(text)
        if case .failure(let error) = result {
            Issue.record("config/ipdirect.toml: \(error)")
        }
        #expect(try result.get() == Config.builtIn)
    }

    @Test func exampleFileShowsEveryKeyInItsSection() throws {
        let text = try #require(PackageFiles.read("config/ipdirect.toml"))
        var section = ""
        var shown: Set<String> = []
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.hasPrefix("#") ? rawLine.dropFirst() : rawLine[...]
            if line.hasPrefix("[["), let close = line.firstRange(of: "]]") {
                // [[tls.pin]] shows the key pin of [tls], and the keys below it are the pin's.
                section = String(line[line.index(line.startIndex, offsetBy: 2)..<close.lowerBound])
                shown.insert(section)
            } else if line.hasPrefix("["), let close = line.firstIndex(of: "]") {
                section = String(line[line.index(after: line.startIndex)..<close])
            } else if let equals = line.firstIndex(of: "=") {
                shown.insert(section + "." + line[..<equals].trimmingSpaces())
            }
        }
        for (section, key) in Self.schemaKeys {
            #expect(shown.contains("\(section).\(key)"), "config/ipdirect.toml does not show [\(section)] \(key)")
        }
        #expect(Config.sections.map(\.name).allSatisfy { text.contains("[\($0)]") })
        #expect(Self.tableArrays.allSatisfy { text.contains("[[\($0)]]") })
    }

    static let reference = "docs/configuration.md"

    @Test func referenceDocumentsEveryKeyAndSection() throws {
        let text = try #require(PackageFiles.read(Self.reference))
        for (section, key) in Self.schemaKeys {
            #expect(text.contains("| `\(key)` |"), "\(Self.reference) has no row for [\(section)] \(key)")
        }
        for section in Config.sections.map(\.name) {
            #expect(text.contains("\n## `[\(section)]`\n"), "\(Self.reference) has no heading for [\(section)]")
        }
        for tableArray in Self.tableArrays {
            #expect(text.contains("\n## `[[\(tableArray)]]`\n"),
                    "\(Self.reference) has no heading for [[\(tableArray)]]")
        }
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
