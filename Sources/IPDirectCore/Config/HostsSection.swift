/// The `[hosts]` section: fixed addresses for host names, like /etc/hosts but only for the proxy.
///
///     [hosts]
///     "example.com" = "192.0.2.10"
///     "api.example.com" = ["192.0.2.20", "2001:db8::20"]
enum HostsSection {
    static let name = "hosts"

    static var section: ConfigSection {
        ConfigSection(name: name) { table, config in
            read(table, into: &config.hosts)
        }
    }

    static func read(_ table: TOMLTable, into hosts: inout [String: [IPAddress]]) -> [ConfigDiagnostic] {
        var diagnostics: [ConfigDiagnostic] = []
        var firstLines: [String: Int] = [:]
        for entry in table.entries {
            if case .table(let nested) = entry.value.kind {
                // An unquoted example.com is the dotted key example -> com, a nested table.
                for (dotted, line) in leafNames(nested, prefix: entry.key, line: entry.line) {
                    diagnostics.append(ConfigDiagnostic(
                        line: line, message: "hosts: quote host names that contain dots, as in \(LogQuote.quoted(dotted)) = ..."))
                }
                continue
            }
            let hostName: String
            switch HostName.normalize(entry.key) {
            case .success(let normalized):
                hostName = normalized
            case .failure(let reason):
                diagnostics.append(ConfigDiagnostic(line: entry.line, message: "hosts: \(reason.message)"))
                continue
            }
            if let firstLine = firstLines[hostName] {
                diagnostics.append(ConfigDiagnostic(
                    line: entry.line, message: "hosts: \(LogQuote.singleQuoted(hostName)) is listed twice (first on line \(firstLine))"))
                continue
            }
            firstLines[hostName] = entry.line
            switch addresses.read(entry.value) {
            case .success(let ips):
                hosts[hostName] = ips
            case .failure(let problems):
                diagnostics += problems.items.map {
                    ConfigDiagnostic(line: $0.line, message: "hosts: \(LogQuote.singleQuoted(hostName)): \($0.message)")
                }
            }
        }
        return diagnostics
    }

    /// `"ip"` or `["ip", ...]`.
    private static var addresses: ConfigReader<[IPAddress]> {
        .oneOrList(of: .ipAddress, allowEmpty: false, expected: "an IP address or an array of them")
    }

    /// Dotted names of the values under a nested table, to suggest the quoted spelling.
    private static func leafNames(_ table: TOMLTable, prefix: String, line: Int) -> [(String, Int)] {
        var names: [(String, Int)] = []
        for entry in table.entries {
            let dotted = prefix + "." + entry.key
            if case .table(let nested) = entry.value.kind {
                names += leafNames(nested, prefix: dotted, line: entry.line)
            } else {
                names.append((dotted, entry.line))
            }
        }
        return names.isEmpty ? [(prefix, line)] : names
    }
}

extension ConfigReader where Value == IPAddress {
    /// An IPv4 or IPv6 address without port or brackets.
    static var ipAddress: ConfigReader {
        ConfigReader<String>.string.then { text in
            guard let ip = IPAddress(text) else { return .failure("\(LogQuote.singleQuoted(text)) is not an IP address") }
            return .success(ip)
        }
    }
}
