import Testing
import IPDirectCore
@testable import IPDirectIO

/// Vectors made once with the openssl CLI, e.g.
/// `printf 'www.example.com' | openssl enc -des-ecb -provider legacy -provider default -K 6970646972656374 | xxd -p`
/// `printf 'www.example.com' | openssl enc -aes-128-cbc -K 30313233343536373839616263646566 -iv 000102030405060708090a0b0c0d0e0f | xxd -p`
@Suite struct DNSPodCipherTests {
    /// The 8 bytes of "ipdirect".
    static let desKey = Array("ipdirect".utf8)
    /// The 16 bytes of "0123456789abcdef".
    static let aesKey = Array("0123456789abcdef".utf8)
    static let aesIV: [UInt8] = Array(0..<16)

    @Test(arguments: [
        ("www.example.com", "5c17c917db033f2eaec316b9c7a5fb82"),
    ])
    func encryptsNamesWithDESAsTheOpenSSLCommandLineDoes(name: String, hex: String) throws {
        #expect(try DNSPodCipher(algorithm: .des, key: Self.desKey).encryptName(name) == hex)
    }

    @Test func encryptsNamesWithAESAsIVThenCiphertext() throws {
        let cipher = try DNSPodCipher(algorithm: .aes, key: Self.aesKey)
        #expect(try cipher.encryptName("www.example.com", iv: Self.aesIV)
            == "000102030405060708090a0b0c0d0e0f" + "c76e0a8818928ce7aa8b99f52a5d3fff")
    }

    @Test func choosesAFreshIVForEveryAESName() throws {
        let cipher = try DNSPodCipher(algorithm: .aes, key: Self.aesKey)
        #expect(try cipher.encryptName("www.example.com") != cipher.encryptName("www.example.com"))
    }

    @Test(arguments: [
        (TencentFormat.CipherAlgorithm.des, "465d2632f897cd4ab7c0c747b9d2be8d03d8bc974983c48b03f0801f139b77e1",
         [AddressFamily.v4], "93.184.216.34 ttl=600, 93.184.216.35 ttl=600"),
        (.des, "465d2632f897cd4a69a9e2d77dedb8059ff269837d0d102349f20ecf2594a3d5ba32bf93e939deeb154f2f42921eff3a81c9bedbbd608e987ee24fc85762ac42",
         [.v4, .v6], "93.184.216.34 ttl=300, 2606:2800:220:1:248:1893:25c8:1946 ttl=300"),
        (.aes, "f0e0d0c0b0a090807060504030201000" + "94e2ab3472453306b60ecd938280370dd46a45ac9c5d7a426b960dcb10faeb8c",
         [.v4], "93.184.216.34 ttl=600, 93.184.216.35 ttl=600"),
    ])
    func decryptsAndParsesAnswersMadeByTheOpenSSLCommandLine(algorithm: TencentFormat.CipherAlgorithm, body: String,
                                                            families: [AddressFamily], expected: String) throws {
        let cipher = try DNSPodCipher(algorithm: algorithm, key: algorithm == .des ? Self.desKey : Self.aesKey)
        let answer = try cipher.parseAnswer(Array((body + "\n").utf8), families: families).get()
        #expect(answer.description == expected)
    }

    @Test func roundTripsEveryAlgorithm() throws {
        for (algorithm, key) in [(TencentFormat.CipherAlgorithm.des, Self.desKey), (.aes, Self.aesKey)] {
            let cipher = try DNSPodCipher(algorithm: algorithm, key: key)
            let hex = try cipher.encryptName("1.2.3.4,60")
            #expect(try cipher.decryptAnswer(Array(hex.utf8)).get() == Array("1.2.3.4,60".utf8))
        }
    }

    @Test func refusesAnswersThatDoNotDecrypt() throws {
        let des = try DNSPodCipher(algorithm: .des, key: Array("otherkey".utf8))
        let body = Array("465d2632f897cd4ab7c0c747b9d2be8d03d8bc974983c48b03f0801f139b77e1".utf8)
        guard case .failure(.undecryptable) = des.decryptAnswer(body) else {
            Issue.record("a wrong DES key decrypted to something")
            return
        }
        #expect(des.decryptAnswer(Array("not hex".utf8)) == .failure(.undecryptable("the answer is not hex")))
        #expect(des.decryptAnswer(Array("465d2632f897cd".utf8)).isFailure)
        let aes = try DNSPodCipher(algorithm: .aes, key: Self.aesKey)
        #expect(aes.decryptAnswer(Array("000102030405060708090a0b0c0d0e0f".utf8))
            == .failure(.undecryptable("the answer is shorter than its IV")))
    }

    @Test(arguments: [
        (TencentFormat.CipherAlgorithm.des, 7, 8), (.des, 16, 8), (.aes, 8, 16), (.aes, 32, 16),
    ])
    func refusesKeysOfTheWrongLength(algorithm: TencentFormat.CipherAlgorithm, length: Int, expected: Int) {
        #expect(throws: DNSPodCipher.Failure.wrongKeyLength(algorithm, bytes: length, expected: expected)) {
            try DNSPodCipher(algorithm: algorithm, key: [UInt8](repeating: 1, count: length))
        }
    }

    @Test func refusesAnAESIVOfTheWrongLength() throws {
        let cipher = try DNSPodCipher(algorithm: .aes, key: Self.aesKey)
        #expect(throws: DNSPodCipher.Failure.wrongIVLength(bytes: 8, expected: 16)) {
            try cipher.encryptName("a.test", iv: [UInt8](repeating: 0, count: 8))
        }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
