/// The users of `auth_file`, an htpasswd file: one `user:hash` a line, as `htpasswd -B` writes it. Lines
/// starting with `#` and blank lines are skipped, CRLF line ends are read as LF, and anything after a second
/// `:` is ignored, as Apache does. Only hashes `PasswordHashScheme` names are accepted.
public struct PasswordFile: Sendable, Equatable {
    /// The stored hash of each user.
    public let hashes: [String: String]
    /// A login for a user the file does not list is checked against this hash and then refused, so it takes
    /// as long as a wrong password for a listed user and the time of a refusal does not tell which users
    /// exist. It is a hash of the setting most of the file's hashes share (the file's usual cost); nil for a
    /// file without users.
    public let decoyHash: String?

    public init(hashes: [String: String]) {
        self.hashes = hashes
        decoyHash = Self.decoy(among: hashes)
    }

    /// A hash of the most common cost setting, the first user's by name among equals so that the choice
    /// does not change from one reading of the same file to the next.
    private static func decoy(among hashes: [String: String]) -> String? {
        var usersBySetting: [String: [String]] = [:]
        for (user, hash) in hashes {
            usersBySetting[PasswordHashScheme.costSetting(of: hash), default: []].append(user)
        }
        let usual = usersBySetting.max { lhs, rhs in
            lhs.value.count != rhs.value.count ? lhs.value.count < rhs.value.count : lhs.key > rhs.key
        }
        return usual.flatMap { setting in setting.value.min().flatMap { hashes[$0] } }
    }

    /// One refused line. The message names the user but never the hash, so it can be logged.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let message: String

        /// `line 3: user alice: ...`
        public var description: String { "line \(line): \(message)" }
    }

    /// Every refused line of a file, in order.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let problems: [Problem]

        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }

    /// What a user is told to do about a hash that cannot be used.
    static let remedy = "make it with htpasswd -B (bcrypt)"

    public static func parse(_ text: String) -> Result<PasswordFile, ParseError> {
        var hashes: [String: String] = [:]
        var firstLines: [String: Int] = [:]
        var problems: [Problem] = []
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.hasPrefix("#") { continue }
            switch entry(line) {
            case .failure(let refusal):
                problems.append(Problem(line: number, message: refusal.message))
            case .success(let (user, hash)):
                if let first = firstLines[user] {
                    problems.append(Problem(line: number, message: "user \(LogQuote.token(user)) is listed twice (first on line \(first))"))
                } else {
                    firstLines[user] = number
                    hashes[user] = hash
                }
            }
        }
        return problems.isEmpty ? .success(PasswordFile(hashes: hashes)) : .failure(ParseError(problems: problems))
    }

    private static func entry(_ line: Substring) -> Result<(String, String), ConfigRejection> {
        let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count >= 2 else { return .failure("not user:hash") }
        let user = String(fields[0])
        // Basic credentials are `user:password` (RFC 7617 §2), so a user name holds no colon; it is logged,
        // so it holds no control characters either.
        guard !user.isEmpty else { return .failure("empty user name") }
        guard !user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure("user name with control characters")
        }
        let hash = fields[1]
        guard let scheme = PasswordHashScheme(hash: hash) else {
            return .failure("user \(LogQuote.token(user)): \(refusedForm(hash)); \(remedy)")
        }
        guard scheme.isWellFormed(hash) else {
            return .failure("user \(LogQuote.token(user)): damaged \(scheme) hash; \(remedy)")
        }
        return .success((user, String(hash)))
    }

    /// Names the hashes htpasswd makes that crypt(3) cannot verify or that are too weak to accept.
    private static func refusedForm(_ hash: Substring) -> String {
        if hash.hasPrefix("{SHA}") { return "{SHA} (unsalted SHA-1) password hash is not accepted" }
        if hash.hasPrefix("$apr1$") { return "$apr1$ (Apache MD5) password hash is not accepted" }
        if hash.hasPrefix("$1$") { return "$1$ (MD5-crypt) password hash is not accepted" }
        return "plain-text or unsupported password hash"
    }
}
