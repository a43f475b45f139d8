/// The password hashes an `auth_file` may hold: those Debian's crypt(3) (libxcrypt) verifies and that are
/// salted and slow enough to withstand guessing if the file leaks. Told apart by their `$id$` prefix
/// (the modular crypt format).
public enum PasswordHashScheme: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `htpasswd -B`; `$2y$` (Apache, PHP), `$2b$` (OpenBSD) and `$2a$` (the original) are the same.
    case bcrypt
    /// `htpasswd -2`, `mkpasswd -m sha-256`.
    case sha256crypt = "sha256-crypt"
    /// `htpasswd -5`, `mkpasswd -m sha-512`.
    case sha512crypt = "sha512-crypt"
    /// `mkpasswd -m yescrypt`: Debian's default for /etc/shadow.
    case yescrypt

    public var prefixes: [String] {
        switch self {
        case .bcrypt: return ["$2y$", "$2b$", "$2a$"]
        case .sha256crypt: return ["$5$"]
        case .sha512crypt: return ["$6$"]
        case .yescrypt: return ["$y$"]
        }
    }

    /// bcrypt's fixed form: `$2y$`, two cost digits, `$`, 22 characters of salt, 31 of hash.
    static let bcryptLength = 60

    /// The scheme of `hash`, or nil for anything else (plain text, `{SHA}`, `$apr1$`, DES, MD5-crypt).
    public init?(hash: Substring) {
        guard let scheme = PasswordHashScheme.allCases.first(where: { scheme in
            scheme.prefixes.contains { hash.hasPrefix($0) }
        }) else { return nil }
        self = scheme
    }

    /// Whether `hash` has the shape crypt(3) can verify. A damaged hash never matches any password, so
    /// it is refused when the file is read rather than found out one failed login at a time.
    func isWellFormed(_ hash: Substring) -> Bool {
        // The crypt alphabet, `$` between fields and `=` in SHA-crypt's `rounds=N`.
        let isCryptByte: (UInt8) -> Bool = { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "=")
        }
        guard hash.utf8.allSatisfy(isCryptByte), hash.utf8.last != UInt8(ascii: "$") else { return false }
        switch self {
        case .bcrypt: return hash.utf8.count == Self.bcryptLength
        case .sha256crypt, .sha512crypt, .yescrypt:
            // `$id$` then at least a salt and a hash field (SHA-crypt may add `rounds=N`, yescrypt its parameters).
            let minimumFields = 4
            return hash.split(separator: "$", omittingEmptySubsequences: false).count >= minimumFields
        }
    }

    /// What makes `hash` as slow to check as it is: the scheme and its cost parameters, without salt or
    /// checksum (`bcrypt $12`, `sha512-crypt rounds=5000`, `yescrypt j9T`). Two hashes with the same setting
    /// take the same time to check.
    static func costSetting(of hash: String) -> String {
        guard let scheme = PasswordHashScheme(hash: Substring(hash)) else { return hash }
        let fields = hash.split(separator: "$", omittingEmptySubsequences: false)
        let parameters: Substring
        switch scheme {
        case .bcrypt:
            parameters = fields.count > 2 ? fields[2] : ""
        case .sha256crypt, .sha512crypt:
            parameters = fields.count > 2 && fields[2].hasPrefix("rounds=") ? fields[2] : "default rounds"
        case .yescrypt:
            parameters = fields.count > 2 ? fields[2] : ""
        }
        return "\(scheme) \(parameters)"
    }

    public var description: String { rawValue }
}
