/// Strict decoding of base64 text (RFC 4648 §4: the standard alphabet, `=` padding required).
///
/// Strict on purpose (RFC 4648 §3.5): a value is only accepted in its one canonical spelling, so two
/// spellings of the same bytes cannot exist and a configured pin compares equal to the base64 that
/// `openssl base64` prints for the same digest.
enum Base64 {
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Base64 comes in groups of four characters.
        case lengthNotMultipleOfFour(Int)
        /// Not in the RFC 4648 §4 alphabet (a URL-safe `-` or `_`, a space, a line break).
        case invalidCharacter(Character)
        /// `=` somewhere other than the last one or two places.
        case misplacedPadding
        /// The bits after the last whole byte are not zero, so this is not the canonical spelling.
        case nonZeroTrailingBits

        var description: String {
            switch self {
            case .lengthNotMultipleOfFour(let length):
                return "its length \(length) is not a multiple of 4 (is the = padding missing?)"
            case .invalidCharacter(let character):
                return "'\(character.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())' is not a base64 character"
            case .misplacedPadding:
                return "'=' may only end it"
            case .nonZeroTrailingBits:
                return "its last character is not the canonical one for these bytes"
            }
        }
    }

    /// RFC 4648 §4: four characters of six bits each stand for three bytes.
    private static let charactersPerGroup = 4
    private static let bytesPerGroup = 3
    private static let bitsPerCharacter = 6
    private static let bitsPerByte = 8
    /// RFC 4648 §4: a last group of one or two bytes is padded to four characters with one or two `=`.
    private static let maximumPadding = 2
    private static let padding = UInt8(ascii: "=")

    static func decode(_ text: String) -> Result<[UInt8], Failure> {
        var characters: [UInt8] = []
        for scalar in text.unicodeScalars {
            guard scalar.isASCII else { return .failure(.invalidCharacter(Character(scalar))) }
            characters.append(UInt8(scalar.value))
        }
        guard characters.count % charactersPerGroup == 0 else {
            return .failure(.lengthNotMultipleOfFour(characters.count))
        }
        var paddingCount = 0
        while paddingCount < maximumPadding, paddingCount < characters.count,
              characters[characters.count - 1 - paddingCount] == padding
        {
            paddingCount += 1
        }
        let dataCharacters = characters[..<(characters.count - paddingCount)]
        // "A===" or "====": a padded group still needs at least two data characters.
        if paddingCount > 0, dataCharacters.count % charactersPerGroup < charactersPerGroup - maximumPadding {
            return .failure(.misplacedPadding)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / charactersPerGroup * bytesPerGroup)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for character in dataCharacters {
            guard let value = sextet(character) else {
                if character == padding { return .failure(.misplacedPadding) }
                return .failure(.invalidCharacter(Character(Unicode.Scalar(character))))
            }
            accumulator = accumulator << bitsPerCharacter | UInt32(value)
            bitCount += bitsPerCharacter
            if bitCount >= bitsPerByte {
                bitCount -= bitsPerByte
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> bitCount))
                accumulator &= (1 << bitCount) - 1
            }
        }
        // A padded last group keeps 2 or 4 bits beyond its last byte; canonical text has them zero.
        guard accumulator == 0 else { return .failure(.nonZeroTrailingBits) }
        return .success(bytes)
    }

    /// RFC 4648 §4 table 1: each character's position is the six bits it stands for.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func sextet(_ character: UInt8) -> UInt8? {
        alphabet.firstIndex(of: character).map { UInt8($0) }
    }
}
