import Testing
@testable import IPDirectCore

/// Strict base64, as pins are written.
@Suite struct Base64Tests {
    /// RFC 4648 §10 test vectors.
    @Test(arguments: [
        ("", ""),
        ("Zg==", "f"),
        ("Zm8=", "fo"),
        ("Zm9v", "foo"),
        ("Zm9vYg==", "foob"),
        ("Zm9vYmE=", "fooba"),
        ("Zm9vYmFy", "foobar"),
    ])
    func decodesTheRFCTestVectors(encoded: String, decoded: String) {
        #expect(Base64.decode(encoded) == .success(Array(decoded.utf8)))
    }

    @Test func decodesEveryCharacterOfTheAlphabet() {
        let encoded = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let expected = (0..<48).map { index -> UInt8 in
            // Sextets 0...63 in order, packed four to three bytes.
            let group = index / 3
            let sextets = (0..<4).map { UInt32(group * 4 + $0) }
            let bits = sextets[0] << 18 | sextets[1] << 12 | sextets[2] << 6 | sextets[3]
            return UInt8(truncatingIfNeeded: bits >> (16 - 8 * UInt32(index % 3)))
        }
        #expect(Base64.decode(encoded) == .success(expected))
    }

    @Test(arguments: [
        ("Zg=", Base64.Failure.lengthNotMultipleOfFour(3)),
        ("Zg", .lengthNotMultipleOfFour(2)),
        ("Zm9v\n", .lengthNotMultipleOfFour(5)),
        ("Zm 9", .invalidCharacter(" ")),
        ("Zm-_", .invalidCharacter("-")),
        ("Zmé=", .invalidCharacter("é")),
        ("Z===", .misplacedPadding),
        ("====", .misplacedPadding),
        ("Zg==Zm9v", .misplacedPadding),
        ("Z=9v", .misplacedPadding),
        ("Zh==", .nonZeroTrailingBits),
        ("Zm9=", .nonZeroTrailingBits),
    ])
    func refusesAnythingButTheCanonicalSpelling(encoded: String, failure: Base64.Failure) {
        #expect(Base64.decode(encoded) == .failure(failure))
    }
}
