import CEvent
import IPDirectCore

/// The encryption of DNSPod D+'s encrypted form: the name goes out as hex ciphertext in `dn=`, and
/// the answer comes back as hex ciphertext of the plain answer text.
///
/// `des`: DES-ECB with PKCS#5 padding under the 8 configured key bytes. `aes`: AES-128-CBC with
/// PKCS#7 padding under the 16 key bytes; the hex is of IV ‖ ciphertext, a fresh IV per request.
///
/// Single DES lives only in OpenSSL 3's legacy provider. Loading it into the process-wide library
/// context would change what every TLS connection may negotiate, so this class owns a private
/// context with just the legacy and default providers, and fetches its cipher from there.
public final class DNSPodCipher {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The configured key does not have the size the algorithm needs.
        case wrongKeyLength(TencentFormat.CipherAlgorithm, bytes: Int, expected: Int)
        /// OpenSSL could not provide the cipher (for DES: the legacy provider module is missing).
        case cipherUnavailable(TencentFormat.CipherAlgorithm, String)
        /// The given IV does not have the cipher's block size.
        case wrongIVLength(bytes: Int, expected: Int)
        /// OpenSSL refused to encrypt (a broken library; never seen with a valid key).
        case encryptionFailed(String)

        public var description: String {
            switch self {
            case .wrongKeyLength(let algorithm, let bytes, let expected):
                return "a \(algorithm) key must be \(expected) bytes, not \(bytes)"
            case .cipherUnavailable(let algorithm, let why):
                return "OpenSSL cannot provide \(algorithm): \(why)"
            case .wrongIVLength(let bytes, let expected):
                return "an IV must be \(expected) bytes, not \(bytes)"
            case .encryptionFailed(let why):
                return "OpenSSL did not encrypt: \(why)"
            }
        }
    }

    /// DES takes 8 key bytes (of which 56 bits count); AES-128 takes 16.
    static let desKeySize = 8
    static let aesKeySize = 16
    /// The AES block size, and so the size of the IV that precedes the ciphertext.
    static let aesBlockSize = 16

    public let algorithm: TencentFormat.CipherAlgorithm
    private let key: [UInt8]
    private let libraryContext: OpaquePointer
    private var providers: [OpaquePointer] = []
    private let cipher: OpaquePointer

    public init(algorithm: TencentFormat.CipherAlgorithm, key: [UInt8]) throws(Failure) {
        let expected = algorithm == .des ? Self.desKeySize : Self.aesKeySize
        guard key.count == expected else { throw .wrongKeyLength(algorithm, bytes: key.count, expected: expected) }
        guard let context = OSSL_LIB_CTX_new() else {
            throw .cipherUnavailable(algorithm, OpenSSLErrorQueue.drainThread() ?? "no library context")
        }
        var loaded: [OpaquePointer] = []
        for name in ["legacy", "default"] {
            guard let provider = OSSL_PROVIDER_load(context, name) else {
                let why = "the \(name) provider does not load (\(OpenSSLErrorQueue.drainThread() ?? "no reason given"))"
                loaded.forEach { OSSL_PROVIDER_unload($0) }
                OSSL_LIB_CTX_free(context)
                throw .cipherUnavailable(algorithm, why)
            }
            loaded.append(provider)
        }
        guard let cipher = EVP_CIPHER_fetch(context, algorithm == .des ? "DES-ECB" : "AES-128-CBC", nil) else {
            let why = OpenSSLErrorQueue.drainThread() ?? "cipher not found"
            loaded.forEach { OSSL_PROVIDER_unload($0) }
            OSSL_LIB_CTX_free(context)
            throw .cipherUnavailable(algorithm, why)
        }
        self.algorithm = algorithm
        self.key = key
        self.libraryContext = context
        self.providers = loaded
        self.cipher = cipher
    }

    deinit {
        EVP_CIPHER_free(cipher)
        providers.reversed().forEach { OSSL_PROVIDER_unload($0) }
        OSSL_LIB_CTX_free(libraryContext)
    }

    /// The hex ciphertext of `name` for `dn=`. AES uses `iv`, or a fresh random one when nil
    /// (tests pass one to compare with fixed vectors); DES has no IV.
    public func encryptName(_ name: String, iv: [UInt8]? = nil) throws(Failure) -> String {
        var prefix: [UInt8] = []
        var cipherIV: [UInt8]?
        if algorithm == .aes {
            // SystemRandomNumberGenerator reads getrandom(2): unpredictable IVs without more C.
            let chosen = iv ?? (0..<Self.aesBlockSize).map { _ in UInt8.random(in: .min ... .max) }
            guard chosen.count == Self.aesBlockSize else {
                throw .wrongIVLength(bytes: chosen.count, expected: Self.aesBlockSize)
            }
            prefix = chosen
            cipherIV = chosen
        }
        guard let ciphertext = crypt(Array(name.utf8), iv: cipherIV, encrypting: true) else {
            throw .encryptionFailed(OpenSSLErrorQueue.drainThread() ?? "no reason given")
        }
        return Hex.encode(prefix + ciphertext)
    }

    /// The plain answer text inside a hex ciphertext body, or why it does not decrypt.
    public func decryptAnswer(_ body: [UInt8]) -> Result<[UInt8], ProviderAnswerError> {
        guard body.count <= ProviderAnswerLimits.maximumBodySize else {
            return .failure(.bodyTooLarge(size: body.count, limit: ProviderAnswerLimits.maximumBodySize))
        }
        // D+ may end the hex with a line break; nothing else may surround it.
        let trimmed = body.reversed().drop { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }.reversed()
        guard let ciphertext = Hex.decode(String(decoding: trimmed, as: UTF8.self)) else {
            return .failure(.undecryptable("the answer is not hex"))
        }
        let plaintext: [UInt8]?
        switch algorithm {
        case .des:
            plaintext = crypt(ciphertext, iv: nil, encrypting: false)
        case .aes:
            guard ciphertext.count > Self.aesBlockSize else {
                return .failure(.undecryptable("the answer is shorter than its IV"))
            }
            plaintext = crypt(Array(ciphertext.dropFirst(Self.aesBlockSize)),
                              iv: Array(ciphertext.prefix(Self.aesBlockSize)), encrypting: false)
        }
        guard let plaintext else {
            return .failure(.undecryptable(OpenSSLErrorQueue.drainThread() ?? "bad padding or length"))
        }
        return .success(plaintext)
    }

    /// Decrypts `body` and parses the answer text as `TencentFormat` does for plain answers.
    public func parseAnswer(_ body: [UInt8], families: [AddressFamily]) -> Result<ProviderAnswer, ProviderAnswerError> {
        decryptAnswer(body).flatMap { TencentFormat.parseAnswer($0, families: families) }
    }

    /// One whole EVP encryption or decryption; nil when OpenSSL refuses (on decryption: a wrong key
    /// or a truncated message, seen as bad padding).
    private func crypt(_ input: [UInt8], iv: [UInt8]?, encrypting: Bool) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialised = key.withUnsafeBufferPointer { keyBytes in
            if let iv {
                return iv.withUnsafeBufferPointer { ivBytes in
                    EVP_CipherInit_ex2(context, cipher, keyBytes.baseAddress, ivBytes.baseAddress, encrypting ? 1 : 0, nil)
                }
            }
            return EVP_CipherInit_ex2(context, cipher, keyBytes.baseAddress, nil, encrypting ? 1 : 0, nil)
        }
        guard initialised == 1 else { return nil }
        // Output is at most one block longer than the input (padding), and EVP needs that room.
        var output = [UInt8](repeating: 0, count: input.count + Int(EVP_MAX_BLOCK_LENGTH))
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let succeeded = output.withUnsafeMutableBufferPointer { out in
            guard EVP_CipherUpdate(context, out.baseAddress, &written, input, Int32(input.count)) == 1 else { return false }
            return EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &finalWritten) == 1
        }
        guard succeeded else { return nil }
        return Array(output.prefix(Int(written + finalWritten)))
    }
}
