/// RFC 4648 §5 base64 with the URL and filename safe alphabet, padding left off as RFC 8484 §6 requires.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each base64 character carries six bits.
    private static let bitsPerCharacter = 6
    private static let characterMask: UInt32 = 0x3F

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var start = 0
        while start < bytes.count {
            let group = bytes[start..<min(start + 3, bytes.count)]
            var bits: UInt32 = 0
            for (position, byte) in group.enumerated() {
                bits |= UInt32(byte) << UInt32(16 - 8 * position)
            }
            // n bytes give n + 1 characters; the rest would be `=` padding, which is dropped.
            for position in 0...group.count {
                let shift = UInt32(18 - bitsPerCharacter * position)
                output.append(alphabet[Int((bits >> shift) & characterMask)])
            }
            start += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
