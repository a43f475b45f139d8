/// Base16 (RFC 4648 §8) as HTTPDNS vendors use it: MD5 signatures and encrypted names and answers.
public enum Hex {
    /// Lower-case hex, two characters per byte: the spelling the vendors print and expect.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of even-length hex text in either case; nil for anything else.
    public static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = HTTPByte.hexValue(characters[index]), let low = HTTPByte.hexValue(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
