import CEvent
import IPDirectCore

/// Makes the keys of the verified-credential cache: HMAC-SHA-256 (RFC 2104) of a user and password under a
/// key drawn at random when the process starts. The cache thus never holds a password, nor anything a guess
/// could be checked against without that key.
struct CredentialDigester {
    /// As long as SHA-256's output (RFC 2104 §3).
    static let keyBytes = 32
    private let key: [UInt8]

    init() throws(StartupError) {
        var key = [UInt8](repeating: 0, count: Self.keyBytes)
        guard RAND_bytes(&key, Int32(key.count)) == 1 else {
            throw StartupError("cannot draw a random key for the login cache: \(OpenSSLErrorQueue.drainThread() ?? "no reason given")")
        }
        self.key = key
    }

    /// The user's length comes first, so ("ab", "c") and ("a", "bc") differ. Nil if OpenSSL fails: the
    /// login is then checked without the cache, since a digest of nothing would match every password.
    func digest(user: String, password: String) -> VerifiedCredentials.Digest? {
        let userBytes = Array(user.utf8)
        let length = UInt32(truncatingIfNeeded: userBytes.count)
        let message = (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) } + userBytes + Array(password.utf8)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outputLength: UInt32 = 0
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &output, &outputLength) != nil,
              outputLength > 0 else { return nil }
        return VerifiedCredentials.Digest(bytes: Array(output.prefix(Int(outputLength))))
    }
}
