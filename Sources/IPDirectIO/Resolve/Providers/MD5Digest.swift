import CEvent
import IPDirectCore

/// MD5 (RFC 1321) through OpenSSL's EVP interface, for Alibaba Cloud's request signatures.
///
/// MD5 is broken for collision resistance; it is used only because the vendor's signing scheme
/// is defined with it, never to protect anything of ipdirect's own.
public enum MD5Digest {
    /// RFC 1321 §3.5: the digest is 128 bits.
    static let digestSize = 16

    /// The lower-case hex MD5 of `bytes`.
    public static func hex(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let succeeded = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_md5(), nil) == 1
        }
        // MD5 is in OpenSSL's default provider and cannot fail on an in-memory buffer unless the
        // library is broken; a signature nobody can verify is the safest outcome then.
        precondition(succeeded && Int(length) == digestSize, "OpenSSL MD5 failed: \(OpenSSLErrorQueue.drainThread() ?? "unknown error")")
        return Hex.encode(digest.prefix(digestSize))
    }

    /// The lower-case hex MD5 of the UTF-8 bytes of `text`.
    public static func hex(of text: String) -> String {
        hex(of: Array(text.utf8))
    }
}
