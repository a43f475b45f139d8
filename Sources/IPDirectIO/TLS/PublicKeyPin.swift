import CEvent

/// A pinned public key: base64 of the SHA-256 of a certificate's DER SubjectPublicKeyInfo, the
/// pin-sha256 form of RFC 7469 §2.4, as printed by
/// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
/// Pinning the key rather than the certificate survives renewals that keep the key.
enum PublicKeyPin {
    /// Length of a base64-encoded SHA-256 digest: 32 bytes give 44 characters with one `=`.
    static let encodedLength = 44
    /// Bytes of a SHA-256 digest.
    private static let digestLength = 32

    /// Whether `text` can be a pin at all: 44 base64 characters ending in one `=`.
    static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == encodedLength, bytes.last == UInt8(ascii: "=") else { return false }
        return bytes.dropLast().allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): return true
            default: return false
            }
        }
    }

    /// The pin of an X509 certificate's public key, or nil when it cannot be encoded.
    static func of(certificate: OpaquePointer) -> String? {
        guard let publicKey = X509_get_X509_PUBKEY(certificate) else { return nil }
        let length = i2d_X509_PUBKEY(publicKey, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509_PUBKEY(publicKey, &cursor)
        }
        guard written == length else { return nil }
        var digest = [UInt8](repeating: 0, count: digestLength)
        var digestSize: UInt32 = 0
        guard EVP_Digest(der, der.count, &digest, &digestSize, EVP_sha256(), nil) == 1,
              digestSize == digestLength else { return nil }
        // EVP_EncodeBlock writes 4 bytes per 3 input bytes and a terminating NUL.
        var encoded = [UInt8](repeating: 0, count: encodedLength + 1)
        guard EVP_EncodeBlock(&encoded, digest, Int32(digestLength)) == encodedLength else { return nil }
        return String(decoding: encoded.prefix(encodedLength), as: UTF8.self)
    }
}
