/// One `[[tls.pin]]` table of the configuration file: a host and the public keys its certificate
/// chain must contain at least one of (public key pinning, as in RFC 7469 §2.4).
///
///     [[tls.pin]]
///     host = "api.example.com"
///     spki_sha256 = ["<base64 SHA-256 of the DER SubjectPublicKeyInfo>", "<a backup key>"]
struct TLSPinTable {
    var host: String?
    var spkiSHA256: [String] = []

    /// How the table is written, for messages.
    static let header = "[[tls.pin]]"
    static let hostKey = "host"
    static let digestsKey = "spki_sha256"
    /// FIPS 180-4: a SHA-256 digest is 32 bytes.
    static let sha256Length = 32
    /// A SHA-256 digest in hexadecimal, the form people paste by mistake.
    static let sha256HexLength = 64
    /// curl's `--pinnedpubkey sha256//...` spelling, which people copy along with the digest.
    static let curlDigestPrefix = "sha256/"

    static var configKeys: [ConfigKey<TLSPinTable>] {
        [
            ConfigKey(hostKey, \.host, .exactHostName),
            ConfigKey(digestsKey, \.spkiSHA256, .list(of: .spkiSHA256, allowEmpty: false)),
        ]
    }
}

extension ConfigReader where Value == [String: [String]] {
    /// Every `[[tls.pin]]` table, as digests by host name; each host pinned at most once.
    static var pinTables: ConfigReader {
        let header = TLSPinTable.header
        return ConfigReader { value in
            let items: [TOMLValue]
            switch arrayOfTables(value, header: header, itemName: "pin") {
            case .success(let elements): items = elements
            case .failure(let problems): return .failure(problems)
            }
            var pins: [String: [String]] = [:]
            var firstLines: [String: Int] = [:]
            var problems: [(line: Int, message: String)] = []
            for item in items {
                guard case .table(let table) = item.kind else {
                    problems.append((item.line, "expected a \(header) table, found \(item.typeDescription)"))
                    continue
                }
                var pin = TLSPinTable()
                let keyProblems = ConfigKey.apply(TLSPinTable.configKeys, to: table, &pin) { entry in
                    let key = TOMLTableBuilder.display([entry.key])
                    if case .table = entry.value.kind {
                        return ConfigDiagnostic(line: entry.line, message: "unknown section [tls.pin.\(key)]")
                    }
                    return ConfigDiagnostic(line: entry.line, message: "unknown key \(LogQuote.singleQuoted(key)) in \(header)")
                }
                problems += keyProblems.map { ($0.line, $0.message) }
                var complete = keyProblems.isEmpty
                for required in [TLSPinTable.hostKey, TLSPinTable.digestsKey] where table[required] == nil {
                    problems.append((item.line, "\(header) has no \(required)"))
                    complete = false
                }
                guard let host = pin.host, let hostLine = table.entries.first(where: { $0.key == TLSPinTable.hostKey })?.line else {
                    continue
                }
                if let firstLine = firstLines[host] {
                    problems.append((hostLine, "\(LogQuote.singleQuoted(host)) is pinned twice (first on line \(firstLine))"))
                    continue
                }
                firstLines[host] = hostLine
                if complete { pins[host] = pin.spkiSHA256 }
            }
            return problems.isEmpty ? .success(pins) : .failure(ConfigValueProblems(problems))
        }
    }
}

extension ConfigReader where Value == String {
    /// The base64 SHA-256 digest of a DER SubjectPublicKeyInfo, as printed by
    /// `openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    static var spkiSHA256: ConfigReader {
        string.then { text in
            if text.hasPrefix(TLSPinTable.curlDigestPrefix) {
                return .failure("\(LogQuote.singleQuoted(text)): write the base64 digest alone, without curl's sha256// prefix")
            }
            let isHex = text.utf8.count == TLSPinTable.sha256HexLength && text.utf8.allSatisfy(\.isHexDigit)
            if isHex {
                return .failure("\(LogQuote.singleQuoted(text)) looks like a hexadecimal digest; write it in base64 (openssl dgst -sha256 -binary | base64)")
            }
            switch Base64.decode(text) {
            case .failure(let failure):
                return .failure("\(LogQuote.singleQuoted(text)) is not base64: \(failure)")
            case .success(let bytes) where bytes.count != TLSPinTable.sha256Length:
                return .failure("\(LogQuote.singleQuoted(text)) is \(bytes.count) bytes in base64; a SHA-256 digest is \(TLSPinTable.sha256Length)")
            case .success:
                return .success(text)
            }
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
            || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
