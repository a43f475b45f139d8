/// One `[[resolver.httpdns]]` table as written, before the rules that span its keys turn it into
/// `HTTPDNSProviderSettings`. Every key is optional here so that each missing or misplaced one is
/// reported on its own line.
struct HTTPDNSProviderTable {
    var name: String?
    var format: HTTPDNSFormat?
    var url: HTTPDNSURL?
    var bootstrap: [IPAddress]?
    var caFile: String?
    var spkiSHA256: [String]?
    var timeoutMs: Int?
    var method: HTTPDNSMethod?
    var accountID: String?
    var secretFile: String?
    var secretEnv: String?
    var tokenFile: String?
    var tokenEnv: String?
    var keyID: String?
    var cipher: TencentFormat.CipherAlgorithm?
    var domains: [HostPattern]?
    var clientSubnet: ClientSubnet?

    /// How the table is written, for messages.
    static let header = "[[resolver.httpdns]]"
    /// How unknown sub-tables are named, for messages.
    static let dottedName = "resolver.httpdns"

    enum Key {
        static let name = "name"
        static let format = "format"
        static let url = "url"
        static let bootstrap = "bootstrap"
        static let caFile = "ca_file"
        static let spkiSHA256 = "spki_sha256"
        static let timeoutMs = "timeout_ms"
        static let method = "method"
        static let accountID = "account_id"
        static let secretFile = "secret_file"
        static let secretEnv = "secret_env"
        static let tokenFile = "token_file"
        static let tokenEnv = "token_env"
        static let keyID = "key_id"
        static let cipher = "alg"
        static let domains = "domains"
        static let clientSubnet = "client_subnet"
    }

    static var configKeys: [ConfigKey<HTTPDNSProviderTable>] {
        [
            ConfigKey(Key.name, \.name, .providerName),
            ConfigKey(Key.format, \.format, .choice),
            ConfigKey(Key.url, \.url, .httpdnsURL),
            ConfigKey(Key.bootstrap, \.bootstrap, .oneOrList(of: .bootstrapAddress, allowEmpty: false, expected: "an address or an array of addresses")),
            ConfigKey(Key.caFile, \.caFile, .nonEmptyText),
            ConfigKey(Key.spkiSHA256, \.spkiSHA256, .list(of: .spkiSHA256, allowEmpty: false)),
            ConfigKey(Key.timeoutMs, \.timeoutMs, .integer(in: HTTPDNSProviderSettings.timeoutMsRange)),
            ConfigKey(Key.method, \.method, .choice),
            ConfigKey(Key.accountID, \.accountID, .credentialID),
            ConfigKey(Key.secretFile, \.secretFile, .nonEmptyText),
            ConfigKey(Key.secretEnv, \.secretEnv, .environmentVariableName),
            ConfigKey(Key.tokenFile, \.tokenFile, .nonEmptyText),
            ConfigKey(Key.tokenEnv, \.tokenEnv, .environmentVariableName),
            ConfigKey(Key.keyID, \.keyID, .credentialID),
            ConfigKey(Key.cipher, \.cipher, .choice),
            ConfigKey(Key.domains, \.domains, .list(of: .hostPatternWithoutPort, allowEmpty: false)),
            ConfigKey(Key.clientSubnet, \.clientSubnet, .clientSubnet),
        ]
    }

    /// Credential IDs go into request paths and queries: keep them to characters that need no encoding.
    static let maximumCredentialIDLength = 64
}

extension ConfigReader where Value == String {
    /// A provider name: 1-64 of `A-Z a-z 0-9 . _ -`, so it reads as one token in log lines.
    static var providerName: ConfigReader {
        string.then { text in
            let isNameByte: (UInt8) -> Bool = { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
            guard !text.isEmpty, text.utf8.count <= HTTPDNSProviderSettings.maximumNameLength, text.utf8.allSatisfy(isNameByte) else {
                return .failure("\(LogQuote.singleQuoted(text)) is not a provider name (1-\(HTTPDNSProviderSettings.maximumNameLength) letters, digits, '.', '_' or '-')")
            }
            // Logs, the access log and the cache file name answers by source; these names are taken.
            if HTTPDNSProviderSettings.reservedNames.contains(text) {
                return .failure("\(LogQuote.singleQuoted(text)) names another resolver source; choose another provider name")
            }
            return .success(text)
        }
    }

    /// An account or key ID: 1-64 letters, digits, '-' or '_'.
    static var credentialID: ConfigReader {
        string.then { text in
            let isIDByte: (UInt8) -> Bool = { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
            guard !text.isEmpty, text.utf8.count <= HTTPDNSProviderTable.maximumCredentialIDLength, text.utf8.allSatisfy(isIDByte) else {
                return .failure("\(LogQuote.singleQuoted(text)) is not an ID (1-\(HTTPDNSProviderTable.maximumCredentialIDLength) letters, digits, '-' or '_')")
            }
            return .success(text)
        }
    }

    /// A POSIX environment variable name (letters, digits and '_', not starting with a digit); only
    /// the name is in the file, the value is read at startup.
    static var environmentVariableName: ConfigReader {
        string.then { text in
            let isNameByte: (UInt8) -> Bool = { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }
            guard let first = text.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")),
                  text.utf8.allSatisfy(isNameByte)
            else { return .failure("\(LogQuote.singleQuoted(text)) is not an environment variable name (letters, digits and '_', not starting with a digit)") }
            return .success(text)
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

extension ConfigReader where Value == HTTPDNSURL {
    static var httpdnsURL: ConfigReader {
        ConfigReader<String>.string.then(HTTPDNSURL.parse)
    }
}

extension ConfigReader where Value == IPAddress {
    /// An IP address to reach an endpoint at; the port is always the URL's.
    static var bootstrapAddress: ConfigReader {
        ConfigReader<String>.string.then { text in
            if let ip = IPAddress(text) { return .success(ip) }
            if SocketAddress(text) != nil {
                return .failure("\(LogQuote.singleQuoted(text)) has a port; bootstrap addresses take none (the URL's port is used)")
            }
            return .failure("\(LogQuote.singleQuoted(text)) is not an IP address (bootstrap addresses are never looked up through DNS)")
        }
    }
}
