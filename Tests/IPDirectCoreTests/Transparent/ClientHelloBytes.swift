/// TLS ClientHellos made byte by byte as RFC 8446 §4.1.2 lays them out, for the readers' tests.
enum ClientHelloBytes {
    /// A ClientHello in one record: `serverName` in a server_name extension (none when nil), a padding
    /// extension (RFC 7685) of `padding` bytes when above 0, and `extraExtensions` as they are.
    static func make(serverName: String? = "origin.test", nameType: UInt8 = 0, padding: Int = 0,
                     extraExtensions: [UInt8] = [], withExtensions: Bool = true) -> [UInt8] {
        records(handshake(serverName: serverName, nameType: nameType, padding: padding,
                          extraExtensions: extraExtensions, withExtensions: withExtensions), fragment: 1 << 14)
    }

    /// The handshake message (type 1, 24-bit length, body).
    static func handshake(serverName: String?, nameType: UInt8 = 0, padding: Int = 0, extraExtensions: [UInt8] = [],
                          withExtensions: Bool = true) -> [UInt8] {
        var body: [UInt8] = [0x03, 0x03] + Array(repeating: 0xAB, count: 32)
        body += [32] + Array(repeating: 0x11, count: 32)                 // legacy_session_id
        body += [0x00, 0x04, 0x13, 0x01, 0x13, 0x02]                      // cipher_suites
        body += [0x01, 0x00]                                              // legacy_compression_methods
        if withExtensions {
            var extensions: [UInt8] = []
            // supported_versions: TLS 1.3, so the hello looks like today's.
            extensions += [0x00, 0x2B, 0x00, 0x03, 0x02, 0x03, 0x04]
            if let serverName {
                let name = Array(serverName.utf8)
                let entry = [nameType] + uint16(name.count) + name
                let list = uint16(entry.count) + entry
                extensions += [0x00, 0x00] + uint16(list.count) + list
            }
            extensions += extraExtensions
            if padding > 0 {
                extensions += [0x00, 0x15] + uint16(padding) + Array(repeating: 0, count: padding)
            }
            body += uint16(extensions.count) + extensions
        }
        return [0x01] + uint24(body.count) + body
    }

    /// `message` in handshake records of at most `fragment` bytes each.
    static func records(_ message: [UInt8], fragment: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var offset = 0
        while offset < message.count {
            let chunk = Array(message[offset..<min(message.count, offset + fragment)])
            bytes += [0x16, 0x03, 0x01] + uint16(chunk.count) + chunk
            offset += chunk.count
        }
        return bytes
    }

    static func uint16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func uint24(_ value: Int) -> [UInt8] { [UInt8(value >> 16 & 0xFF)] + uint16(value) }
}
