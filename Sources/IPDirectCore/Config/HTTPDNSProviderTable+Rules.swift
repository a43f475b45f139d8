/// The rules that span the keys of one `[[resolver.httpdns]]` table, and the reader of all of them.
extension HTTPDNSProviderTable {
    typealias Problems = [(line: Int, message: String)]

    /// The provider `table` describes, or nil when it breaks a rule; every problem is reported
    /// either way. `headerLine` is where the table starts, for problems no key line fits.
    static func provider(from table: TOMLTable, headerLine: Int) -> (HTTPDNSProviderSettings?, Problems) {
        var written = HTTPDNSProviderTable()
        let keyProblems = ConfigKey.apply(configKeys, to: table, &written) { entry in
            let key = TOMLTableBuilder.display([entry.key])
            if case .table = entry.value.kind {
                return ConfigDiagnostic(line: entry.line, message: "unknown section [\(dottedName).\(key)]")
            }
            return ConfigDiagnostic(line: entry.line, message: "unknown key \(LogQuote.singleQuoted(key)) in \(header)")
        }
        var problems: Problems = keyProblems.map { ($0.line, $0.message) }
        for required in [Key.name, Key.format, Key.url] where table[required] == nil {
            problems.append((headerLine, "\(header) has no \(required)"))
        }
        let rules = Rules(table: table, headerLine: headerLine)
        problems += rules.exclusivePairs()
        if let format = written.format {
            problems += rules.formatKeys(format, written)
        }
        problems += rules.transport(written)
        let bootstrap = rules.bootstrap(written, &problems)

        guard problems.isEmpty, let name = written.name, let format = written.format, let url = written.url,
              let bootstrap
        else { return (nil, problems) }
        let provider = HTTPDNSProviderSettings(
            name: name, format: format, url: url, bootstrap: bootstrap, caFile: written.caFile,
            spkiSHA256: written.spkiSHA256 ?? [],
            timeoutMs: written.timeoutMs ?? HTTPDNSProviderSettings.defaultTimeoutMs,
            method: written.method ?? .get, accountID: written.accountID,
            secret: credential(file: written.secretFile, environment: written.secretEnv),
            token: credential(file: written.tokenFile, environment: written.tokenEnv),
            keyID: written.keyID, cipher: written.cipher, domains: written.domains ?? [],
            clientSubnet: written.clientSubnet)
        return (provider, [])
    }

    private static func credential(file: String?, environment: String?) -> CredentialSource? {
        if let file { return .file(file) }
        if let environment { return .environment(environment) }
        return nil
    }

    /// Checks over the keys as written in one table; each returns its problems.
    private struct Rules {
        let table: TOMLTable
        let headerLine: Int

        func has(_ key: String) -> Bool { table[key] != nil }

        func line(of key: String) -> Int {
            table.entries.first { $0.key == key }?.line ?? headerLine
        }

        /// One source per credential: a file and a variable for the same secret would leave it unclear which wins.
        func exclusivePairs() -> Problems {
            [(Key.secretFile, Key.secretEnv), (Key.tokenFile, Key.tokenEnv)].compactMap { file, environment in
                guard has(file), has(environment) else { return nil }
                return (max(line(of: file), line(of: environment)),
                        "\(file) and \(environment) exclude each other; name one source")
            }
        }

        /// Which keys each format takes, and what its URL must look like.
        func formatKeys(_ format: HTTPDNSFormat, _ written: HTTPDNSProviderTable) -> Problems {
            var problems: Problems = []
            func only(_ key: String, on allowed: HTTPDNSFormat, _ what: String) {
                if has(key) && format != allowed {
                    problems.append((line(of: key), "\(key): only \(allowed) providers take \(what); this one is \(format)"))
                }
            }
            only(Key.method, on: .doh, "a method (every other format is asked with GET)")
            only(Key.accountID, on: .aliyun, "an account_id")
            for key in [Key.tokenFile, Key.tokenEnv, Key.keyID, Key.cipher] {
                only(key, on: .tencent, "\(key)")
            }
            let secretKeys = [Key.secretFile, Key.secretEnv].filter(has)
            let hasSecret = !secretKeys.isEmpty
            switch format {
            case .doh, .json, .dot:
                for key in secretKeys {
                    problems.append((line(of: key), "\(key): \(format) providers take no secret"))
                }
            case .aliyun:
                if !has(Key.accountID) {
                    problems.append((headerLine, "\(header) has no \(Key.accountID), which aliyun providers need"))
                }
            case .tencent:
                problems += tencentForms(hasSecret: hasSecret, secretKeys: secretKeys)
            }
            if let url = written.url {
                problems += urlShape(url, format)
            }
            if let subnet = written.clientSubnet, subnet.prefixLength == 0, format == .aliyun || format == .tencent {
                // RFC 7871 §7.1.2's /0 ("use no client address") has no `ip=` spelling.
                problems.append((line(of: Key.clientSubnet), "\(Key.clientSubnet): \(format) providers take an address as ip=, which cannot say /0; only doh and json providers can be told to use no client address"))
            }
            return problems
        }

        /// DNSPod has three forms: plain, HTTPS with a token, and encrypted with `id=`/`alg=` and a key.
        private func tencentForms(hasSecret: Bool, secretKeys: [String]) -> Problems {
            var problems: Problems = []
            let hasKeyID = has(Key.keyID)
            let hasCipher = has(Key.cipher)
            if hasKeyID != hasCipher {
                let (present, missing) = hasKeyID ? (Key.keyID, Key.cipher) : (Key.cipher, Key.keyID)
                problems.append((line(of: present), "\(present): the encrypted form needs both \(Key.keyID) and \(Key.cipher); add \(missing)"))
            }
            if hasKeyID && hasCipher && !hasSecret {
                problems.append((headerLine, "\(header) has \(Key.keyID) and \(Key.cipher) but no key: name it in \(Key.secretFile) or \(Key.secretEnv)"))
            }
            if hasSecret && !hasKeyID && !hasCipher {
                for key in secretKeys {
                    problems.append((line(of: key), "\(key): a tencent secret is the key of the encrypted form; add \(Key.keyID) and \(Key.cipher)"))
                }
            }
            let tokenKeys = [Key.tokenFile, Key.tokenEnv].filter(has)
            if hasKeyID || hasCipher {
                for key in tokenKeys {
                    problems.append((line(of: key), "\(key): the token form and the encrypted form (\(Key.keyID), \(Key.cipher)) exclude each other"))
                }
            }
            return problems
        }

        /// doh, json and tencent name the endpoint itself; aliyun names the service, and the path is built
        /// from the account; dot names a host and port over TLS, and only dot does.
        private func urlShape(_ url: HTTPDNSURL, _ format: HTTPDNSFormat) -> Problems {
            let examplePath: String
            if url.isDoT != (format == .dot) {
                let wanted = format == .dot ? "tls://host[:port], such as tls://\(url.authority)" : "http:// or https://"
                return [(line(of: Key.url), "\(Key.url): a \(format) provider's URL is \(wanted); only dot providers take tls:// URLs")]
            }
            switch format {
            case .dot:
                return []
            case .aliyun:
                guard url.hasEmptyPath else {
                    return [(line(of: Key.url), "\(Key.url): an aliyun URL is the service base without a path, such as http://203.107.1.1; /{account_id}/d is added to it")]
                }
                return []
            case .doh: examplePath = "/dns-query"
            case .json: examplePath = "/resolve"
            case .tencent: examplePath = "/d"
            }
            guard url.hasEmptyPath else { return [] }
            return [(line(of: Key.url), "\(Key.url): a \(format) URL names the endpoint's path, such as \(url.isHTTPS ? "https" : "http")://\(url.authority)\(examplePath)")]
        }

        /// A CA file or a key pin only means something when there is TLS.
        func transport(_ written: HTTPDNSProviderTable) -> Problems {
            guard let url = written.url, !url.usesTLS else { return [] }
            return [(Key.caFile, "a CA file"), (Key.spkiSHA256, "key pins")].filter { has($0.0) }.map { key, what in
                (line(of: key), "\(key): only https and tls URLs use \(what); this URL is http")
            }
        }

        /// The addresses to reach the endpoint at: as written, or the URL's own address when it is one.
        /// The URL's host name is never looked up through DNS, so a host name needs bootstrap addresses.
        func bootstrap(_ written: HTTPDNSProviderTable, _ problems: inout Problems) -> [IPAddress]? {
            if let bootstrap = written.bootstrap { return bootstrap }
            guard !has(Key.bootstrap), let url = written.url else { return nil }
            if let address = url.hostAddress { return [address] }
            problems.append((headerLine, "\(header) has no \(Key.bootstrap): the URL's host \(LogQuote.singleQuoted(url.host)) is never looked up through DNS, so list the IP addresses to reach it at"))
            return nil
        }
    }
}

extension ConfigReader where Value == [HTTPDNSProviderSettings] {
    /// Every `[[resolver.httpdns]]` table, in the order written; each name at most once.
    static var httpdnsProviders: ConfigReader {
        let header = HTTPDNSProviderTable.header
        return ConfigReader { value in
            let items: [TOMLValue]
            switch arrayOfTables(value, header: header, itemName: "provider") {
            case .success(let elements): items = elements
            case .failure(let problems): return .failure(problems)
            }
            var providers: [HTTPDNSProviderSettings] = []
            var firstLines: [String: Int] = [:]
            var problems: HTTPDNSProviderTable.Problems = []
            for item in items {
                guard case .table(let table) = item.kind else {
                    problems.append((item.line, "expected a \(header) table, found \(item.typeDescription)"))
                    continue
                }
                let (provider, tableProblems) = HTTPDNSProviderTable.provider(from: table, headerLine: item.line)
                problems += tableProblems
                if let nameEntry = table.entries.first(where: { $0.key == HTTPDNSProviderTable.Key.name }),
                   case .string(let name) = nameEntry.value.kind
                {
                    if let firstLine = firstLines[name] {
                        problems.append((nameEntry.line, "\(HTTPDNSProviderTable.Key.name): \(LogQuote.singleQuoted(name)) names two providers (first on line \(firstLine))"))
                        continue
                    }
                    firstLines[name] = nameEntry.line
                }
                if let provider { providers.append(provider) }
            }
            return problems.isEmpty ? .success(providers) : .failure(ConfigValueProblems(problems))
        }
    }
}
