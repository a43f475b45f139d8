import Glibc
import IPDirectCore

/// Reads the secrets `[[resolver.httpdns]]` entries name: from a file or an environment variable, once, at
/// startup. Errors name where the secret was looked for, never what it is.
enum CredentialReader {
    /// Secrets are short strings; a larger file is the wrong file.
    static let maximumBytes = 4096

    static func read(_ source: CredentialSource, for provider: String, purpose: String) throws(StartupError) -> String {
        let value: String
        switch source {
        case .environment(let variable):
            guard let raw = getenv(variable) else {
                throw StartupError("provider \(provider): \(purpose) environment variable \(variable) is not set")
            }
            value = String(cString: raw)
        case .file(let path):
            value = try readFile(path, provider: provider, purpose: purpose)
        }
        // A trailing line break is how editors and `echo` end files, never part of a secret.
        let trimmed = String(value.reversed().drop { $0 == "\n" || $0 == "\r" }.reversed())
        guard !trimmed.isEmpty else { throw StartupError("provider \(provider): \(purpose) from \(source) is empty") }
        return trimmed
    }

    private static func readFile(_ path: String, provider: String, purpose: String) throws(StartupError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StartupError("provider \(provider): cannot open \(purpose) file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw StartupError("provider \(provider): cannot read \(purpose) file \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= maximumBytes else {
            throw StartupError("provider \(provider): \(purpose) file \(path) is larger than \(maximumBytes) bytes")
        }
        return String(decoding: bytes.prefix(filled), as: UTF8.self)
    }
}
