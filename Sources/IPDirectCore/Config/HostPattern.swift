/// A rule naming upstream hosts: an exact host name (`api.example.com`) or every subdomain of one
/// (`*.example.net`), with an optional port (`plain.example.org:8443`).
///
/// `*.example.net` matches `a.example.net` and `a.b.example.net` but not `example.net` itself, as a
/// wildcard certificate would not either (RFC 6125 §6.4.3 keeps the wildcard out of the bare name).
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// Lower case, no trailing dot, without the `*.` of a wildcard rule.
    let name: String
    /// True for `*.name`: any host ending in `.name`, never `name` itself.
    let coversSubdomains: Bool
    /// The port the rule names, or nil when it names none.
    public var port: UInt16?

    init(name: String, coversSubdomains: Bool, port: UInt16?) {
        self.name = name
        self.coversSubdomains = coversSubdomains
        self.port = port
    }

    /// Parses a rule as written in the configuration file; nil when `text` is not one.
    public init?(_ text: String) {
        guard case .success(let pattern) = Self.parse(text) else { return nil }
        self = pattern
    }

    /// Whether the rule names `host`, which must already be lower case without a trailing dot.
    public func matches(_ host: String) -> Bool {
        guard coversSubdomains else { return host == name }
        let hostBytes = host.utf8
        let nameBytes = name.utf8
        // At least one character, then a dot, then the name: "a.example.net", never "example.net".
        guard hostBytes.count > nameBytes.count + 1 else { return false }
        let dotIndex = hostBytes.index(hostBytes.endIndex, offsetBy: -(nameBytes.count + 1))
        return hostBytes[dotIndex] == UInt8(ascii: ".")
            && hostBytes[hostBytes.index(after: dotIndex)...].elementsEqual(nameBytes)
    }

    /// Whether every host `other` matches is matched by this rule too, whatever the ports:
    /// listed after this rule, `other` would never apply.
    func covers(_ other: HostPattern) -> Bool {
        switch (coversSubdomains, other.coversSubdomains) {
        case (false, false): return name == other.name
        case (false, true): return false
        case (true, false): return matches(other.name)
        case (true, true): return name == other.name || matches(other.name)
        }
    }

    /// The rule as it would be written: `*.example.net:8443`.
    public var description: String {
        let host = coversSubdomains ? Self.wildcardPrefix + name : name
        guard let port else { return host }
        return host + ":" + String(port)
    }
}

extension HostPattern {
    /// Written in front of a name to match its subdomains.
    static let wildcardPrefix = "*."

    /// The rule `text` spells, or why it is not one.
    static func parse(_ text: String) -> Result<HostPattern, ConfigRejection> {
        if IPAddress(text) != nil || SocketAddress(text) != nil || text.hasPrefix("[") {
            return .failure("\(LogQuote.singleQuoted(text)) is an IP address; rules name hosts")
        }
        var hostText = Substring(text)
        var port: UInt16?
        if let colon = text.lastIndex(of: ":") {
            let portText = text[text.index(after: colon)...]
            guard let number = UInt16(portText), number >= 1, portText.utf8.allSatisfy(isDigit) else {
                return .failure("\(LogQuote.singleQuoted(text)): \(LogQuote.singleQuoted(portText)) is not a port (1-\(UInt16.max))")
            }
            port = number
            hostText = text[..<colon]
        }
        var coversSubdomains = false
        if hostText.hasPrefix(wildcardPrefix) {
            coversSubdomains = true
            hostText = hostText.dropFirst(wildcardPrefix.count)
        }
        if hostText.contains("*") || (coversSubdomains && hostText.isEmpty) {
            return .failure("\(LogQuote.singleQuoted(text)): a wildcard must be the whole first label, as in *.example.net")
        }
        switch HostName.normalize(String(hostText)) {
        case .success(let name):
            return .success(HostPattern(name: name, coversSubdomains: coversSubdomains, port: port))
        case .failure(let reason):
            return .failure(reason)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

extension ConfigReader where Value == [HostPattern] {
    /// Rules tried in order, first match wins. A rule that an earlier one always matches first is
    /// refused, since it could never apply: put specific rules before the wildcards that cover them.
    static var orderedHostPatterns: ConfigReader {
        ConfigReader { value in
            guard case .array(let items) = value.kind else { return .failure(mismatch("an array", value)) }
            var rules: [(pattern: HostPattern, line: Int)] = []
            var problems: [(line: Int, message: String)] = []
            for item in items {
                switch ConfigReader<HostPattern>.hostPattern.read(item) {
                case .success(let pattern):
                    if let earlier = rules.first(where: { $0.pattern.covers(pattern) }) {
                        let message = earlier.pattern == pattern
                            ? "\(LogQuote.singleQuoted(pattern)) is listed twice (first on line \(earlier.line))"
                            : "\(LogQuote.singleQuoted(pattern)) never applies: \(LogQuote.singleQuoted(earlier.pattern)) on line \(earlier.line) matches it first"
                        problems.append((item.line, message))
                    } else {
                        rules.append((pattern, item.line))
                    }
                case .failure(let failure):
                    problems += failure.items
                }
            }
            return problems.isEmpty ? .success(rules.map(\.pattern)) : .failure(ConfigValueProblems(problems))
        }
    }
}

extension ConfigReader where Value == HostPattern {
    /// `api.example.com`, `*.example.net` or either with `:port`.
    static var hostPattern: ConfigReader {
        ConfigReader<String>.string.then(HostPattern.parse)
    }
}
