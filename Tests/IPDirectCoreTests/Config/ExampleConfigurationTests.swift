import Glibc
import Testing
@testable import IPDirectCore

/// config/ipdirect.toml and the README's configuration reference stay in step with the schema.
@Suite struct ExampleConfigurationTests {
    /// The package root, four levels above this file (Tests/IPDirectCoreTests/Config/<file>).
    static let packageRoot: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        let levelsBelowRoot = 4
        components.removeLast(levelsBelowRoot)
        return components.joined(separator: "/")
    }()

    static func read(_ relativePath: String) -> String? {
        guard let file = fopen(packageRoot + "/" + relativePath, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

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
            + TLSPinTable.configKeys.map { ("tls.pin", $0.name) }
            + HTTPDNSProviderTable.configKeys.map { ("resolver.httpdns", $0.name) }
    }

    /// Arrays of tables, written `[[name]]`.
    static let tableArrays = ["tls.pin", "resolver.httpdns", "upstream.balance_rule", "upstream.probe"]

    /// The file spells out what ipdirect runs on without one: the defaults and the built-in providers.
    @Test func exampleFileParsesWithoutDiagnosticsToTheBuiltInConfiguration() throws {
        let text = try #require(Self.read("config/ipdirect.toml"))
        let result = Config.parse(text)
        if case .failure(let error) = result {
            Issue.record("config/ipdirect.toml: \(error)")
        }
        #expect(try result.get() == Config.builtIn)
    }

    @Test func exampleFileShowsEveryKeyInItsSection() throws {
        let text = try #require(Self.read("config/ipdirect.toml"))
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

    @Test func referenceDocumentsEveryKeyAndSection() throws {
        let text = try #require(Self.read("README.md"))
        for (section, key) in Self.schemaKeys {
            #expect(text.contains("| `\(key)` |"), "README.md has no row for [\(section)] \(key)")
        }
        for section in Config.sections.map(\.name) {
            #expect(text.contains("### `[\(section)]`"), "README.md has no heading for [\(section)]")
        }
        for tableArray in Self.tableArrays {
            #expect(text.contains("### `[[\(tableArray)]]`"), "README.md has no heading for [[\(tableArray)]]")
        }
    }
}

private extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
