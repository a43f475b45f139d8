import IPDirectCore

/// The fixed 12-byte header of a DNS message (RFC 1035 §4.1.1), read from bytes already known
/// to be at least that long.
struct DNSHeader {
    let flags: UInt16
    let questionCount: UInt16

    /// OPCODE 0: a standard query, the only kind ipdirect sends.
    static let standardQueryOpcode: UInt8 = 0
    /// Bit 15 of the flags: set in responses.
    private static let responseBit: UInt16 = 0x8000
    /// Bit 9 of the flags: set when the message was cut to fit its transport.
    private static let truncationBit: UInt16 = 0x0200
    /// Bits 11-14 of the flags.
    private static let opcodeShift: UInt16 = 11
    private static let opcodeMask: UInt16 = 0x0F
    /// Bits 0-3 of the flags.
    private static let responseCodeMask: UInt16 = 0x0F
    /// Offsets of the 16-bit big-endian fields after the 2-byte ID.
    private static let flagsOffset = 2
    private static let questionCountOffset = 4

    init(_ bytes: [UInt8]) {
        func word(at offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }
        flags = word(at: Self.flagsOffset)
        questionCount = word(at: Self.questionCountOffset)
    }

    var isResponse: Bool { flags & Self.responseBit != 0 }
    var isTruncated: Bool { flags & Self.truncationBit != 0 }
    var opcode: UInt8 { UInt8(flags >> Self.opcodeShift & Self.opcodeMask) }
    var responseCode: DNSResponseCode { DNSResponseCode(rawValue: UInt8(flags & Self.responseCodeMask)) }
}
