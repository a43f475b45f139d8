import CEvent
import Glibc

/// One thread's crypt(3): libxcrypt's reentrant `crypt_rn` with the scratch area it needs, which this
/// object owns. Slow by design (bcrypt: tens of milliseconds), so it runs on the crypt thread only, never
/// on an event loop.
final class CryptWorkspace {
    private let size = Int(ipd_crypt_data_size())
    /// A `struct crypt_data`, zeroed before first use as crypt_rn asks, and after each use so nothing
    /// derived from a password stays in it.
    private let area: UnsafeMutableRawPointer

    init() {
        guard let area = calloc(1, size) else { fatalError("cannot allocate \(size) bytes for crypt(3)") }
        self.area = area
    }

    deinit {
        free(area)
    }

    /// Whether `password` hashes to `hash` (a modular-crypt hash whose `$id$` names the scheme and salt).
    /// A hash crypt(3) cannot use matches nothing.
    func matches(password: String, hash: String) -> Bool {
        // A C string ends at the first NUL: "pass\0word" would be checked as "pass".
        guard !password.utf8.contains(0) else { return false }
        defer { explicit_bzero(area, size) }
        guard let computed = crypt_rn(password, hash, area, Int32(size)) else { return false }
        let length = hash.utf8.count
        // Constant-time comparison: how much of the hash matched must not show in the time it takes.
        return strlen(computed) == length && CRYPTO_memcmp(computed, hash, length) == 0
    }
}
