/// The `cache_file` format: UTF-8 text, one answer per line, version line first.
///
///     ipdirect-cache 1
///     # name family fetched_unix_ms ttl addresses source
///     www.example.com v4 1763824490000 300 93.184.215.14,93.184.215.15 dns.google
///     gone.example v6 1763824490000 30 - system
///     nowhere.example v4 1763824490000 30 nxdomain dns.google
///
/// `-` marks a negative answer for a name without addresses of the family, `nxdomain` one for a name
/// that does not exist. The source is the rest of the line, so provider
/// names may contain spaces. Fetch times are wall-clock (unix) milliseconds because
/// the monotonic clock restarts with the machine; the daemon's downtime then counts
/// towards each answer's age. Writing the file atomically is the I/O layer's job.
public enum CacheFile {
    /// The first line; a different version is refused whole rather than misread.
    public static let versionLine = "ipdirect-cache 1"
    static let header = "# name family fetched_unix_ms ttl addresses source"
    static let negativeMarker = "-"
    static let nameDoesNotExistMarker = "nxdomain"
    /// The longest presentation-form name: 255 wire octets less the length and
    /// root bytes (RFC 1035 §2.3.4).
    public static let maxNameLength = 253
    /// More addresses than any real answer carries; a longer list is a damaged file.
    public static let maxAddressesPerEntry = 64
    /// name, family, fetch time, ttl, addresses, source.
    static let fieldCount = 6
}

/// One answer read back from a cache file, with its fetch time moved onto the
/// caller's monotonic clock.
public struct CacheFileEntry: Sendable, Equatable {
    public var key: ResolverCacheKey
    public var answer: CachedAnswer

    public init(key: ResolverCacheKey, answer: CachedAnswer) {
        self.key = key
        self.answer = answer
    }
}

/// A line of a cache file that was not used, and why.
public struct CacheFileProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Error, Sendable, Equatable, CustomStringConvertible {
        case missingVersionLine
        case unsupportedVersion(String)
        case wrongFieldCount(Int)
        case badName(String)
        case badFamily(String)
        case badFetchTime(String)
        case badTTL(String)
        case badAddress(String)
        case addressFamilyMismatch(String)
        case tooManyAddresses(Int)
        case missingSource
        case tooManyEntries(limit: Int)

        public var description: String {
            switch self {
            case .missingVersionLine: return "file is empty or has no version line"
            case .unsupportedVersion(let line): return "unsupported version line \(LogQuote.singleQuoted(line))"
            case .wrongFieldCount(let count): return "expected \(CacheFile.fieldCount) fields, found \(count)"
            case .badName(let name): return "invalid host name \(LogQuote.singleQuoted(name))"
            case .badFamily(let family): return "unknown address family \(LogQuote.singleQuoted(family)) (want v4 or v6)"
            case .badFetchTime(let text): return "invalid fetch time \(LogQuote.singleQuoted(text))"
            case .badTTL(let text): return "invalid ttl \(LogQuote.singleQuoted(text))"
            case .badAddress(let text): return "invalid address \(LogQuote.singleQuoted(text))"
            case .addressFamilyMismatch(let text): return "address \(LogQuote.singleQuoted(text)) does not match the entry's family"
            case .tooManyAddresses(let count):
                return "\(count) addresses, more than \(CacheFile.maxAddressesPerEntry)"
            case .missingSource: return "no source after the addresses"
            case .tooManyEntries(let limit): return "more than \(limit) entries; the rest is ignored"
            }
        }
    }

    /// 1-based, as an editor shows it.
    public var line: Int
    public var reason: Reason

    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "cache file line \(line): \(reason)" }
}

/// What loading a cache file produced.
public struct CacheFileContents: Sendable, Equatable {
    /// Most recently used first, as written.
    public var entries: [CacheFileEntry] = []
    public var problems: [CacheFileProblem] = []
    /// Well-formed entries dropped because they were past their stale window.
    public var expiredCount = 0

    public init() {}
}

extension ResolverCache {
    /// The cache as a cache file: every entry still inside its stale window, most
    /// recently used first. `unixTimeMillis` is the wall clock at the same moment as `now`.
    public func serialized(now: CacheInstant, unixTimeMillis: Int64) -> [UInt8] {
        var text = CacheFile.versionLine + "\n" + CacheFile.header + "\n"
        for (key, answer) in liveEntries(now: now) {
            let fetchedUnix = unixTimeMillis - answer.age(at: now)
            let addresses = answer.isNegative
                ? (answer.nameDoesNotExist ? CacheFile.nameDoesNotExistMarker : CacheFile.negativeMarker)
                : answer.addresses.map(\.description).joined(separator: ",")
            text += "\(key.name) \(key.family) \(fetchedUnix) \(answer.ttl) \(addresses) \(Self.oneLine(answer.source))\n"
        }
        return Array(text.utf8)
    }

    /// Reads a cache file written by `serialized`, dropping answers past their stale
    /// window under `settings` and reporting every malformed line. Reads at most
    /// `settings.maxEntries` entries.
    public static func load(
        _ bytes: [UInt8], now: CacheInstant, unixTimeMillis: Int64, settings: ResolverCacheSettings
    ) -> CacheFileContents {
        var contents = CacheFileContents()
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let first = lines.first, !first.isEmpty else {
            contents.problems.append(CacheFileProblem(line: 1, reason: .missingVersionLine))
            return contents
        }
        let version = String(decoding: first, as: UTF8.self)
        guard version == CacheFile.versionLine else {
            contents.problems.append(CacheFileProblem(line: 1, reason: .unsupportedVersion(version)))
            return contents
        }
        let judge = ResolverCache(settings: settings)
        for (offset, raw) in lines.enumerated().dropFirst() {
            let line = String(decoding: raw, as: UTF8.self)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard contents.entries.count < settings.maxEntries else {
                contents.problems.append(CacheFileProblem(line: offset + 1, reason: .tooManyEntries(limit: settings.maxEntries)))
                break
            }
            switch parseEntry(line, now: now, unixTimeMillis: unixTimeMillis) {
            case .failure(let reason):
                contents.problems.append(CacheFileProblem(line: offset + 1, reason: reason))
            case .success(let entry):
                if judge.phase(of: entry.answer, at: now) == .gone {
                    contents.expiredCount += 1
                } else {
                    contents.entries.append(entry)
                }
            }
        }
        return contents
    }

    /// Puts back answers loaded from a cache file. They arrive most recently used
    /// first, so they are inserted in reverse to rebuild the same LRU order.
    public mutating func restore(_ contents: CacheFileContents) {
        for entry in contents.entries.reversed() {
            var answer = entry.answer
            // Clamped again: the limits may have changed since the file was written.
            answer.ttl = answer.isNegative ? min(answer.ttl, settings.negativeTTL) : settings.clampedTTL(answer.ttl)
            store(answer, for: entry.key)
        }
    }

    private static func parseEntry(
        _ line: String, now: CacheInstant, unixTimeMillis: Int64
    ) -> Result<CacheFileEntry, CacheFileProblem.Reason> {
        let fields = line.split(separator: " ", maxSplits: CacheFile.fieldCount - 1, omittingEmptySubsequences: false)
        guard fields.count == CacheFile.fieldCount else { return .failure(.wrongFieldCount(fields.count)) }
        let name = fields[0], familyText = fields[1], fetchedText = fields[2], ttlText = fields[3]
        let addressText = fields[4], source = String(fields[5])
        guard !source.isEmpty else { return .failure(.missingSource) }
        guard !name.isEmpty, name.utf8.count <= CacheFile.maxNameLength,
              name.utf8.allSatisfy({ $0 > UInt8(ascii: " ") && $0 < 0x7F }) else {
            return .failure(.badName(String(name)))
        }
        guard let family = AddressFamily(rawValue: String(familyText)) else {
            return .failure(.badFamily(String(familyText)))
        }
        guard let fetchedUnix = Int64(fetchedText), fetchedUnix >= 0 else {
            return .failure(.badFetchTime(String(fetchedText)))
        }
        guard let ttl = UInt32(ttlText) else { return .failure(.badTTL(String(ttlText))) }
        var addresses: [IPAddress] = []
        let nameDoesNotExist = addressText == Substring(CacheFile.nameDoesNotExistMarker)
        if addressText != Substring(CacheFile.negativeMarker) && !nameDoesNotExist {
            let parts = addressText.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= CacheFile.maxAddressesPerEntry else { return .failure(.tooManyAddresses(parts.count)) }
            for part in parts {
                guard let address = IPAddress(part) else { return .failure(.badAddress(String(part))) }
                guard AddressFamily(of: address) == family else { return .failure(.addressFamilyMismatch(String(part))) }
                addresses.append(address)
            }
        }
        // A wall clock that moved backwards makes the answer look new, never older than it is.
        let age = max(0, unixTimeMillis - fetchedUnix)
        var answer = CachedAnswer(addresses: addresses, source: source, fetchedAt: now - age, ttl: ttl)
        answer.nameDoesNotExist = nameDoesNotExist
        return .success(CacheFileEntry(key: ResolverCacheKey(name: String(name), family: family), answer: answer))
    }

    /// A source name is written as the rest of its line, so line breaks and other
    /// control characters in it would corrupt the file.
    private static func oneLine(_ source: String) -> String {
        let cleaned = String(source.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return cleaned.isEmpty ? "?" : cleaned
    }
}
