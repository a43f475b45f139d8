/// The EDNS(0) Padding option (RFC 7830): zero octets that round a query's length up, so that an
/// observer of an encrypted stream cannot tell names apart by the size of their queries.
public enum EDNSPadding {
    /// RFC 7830 §4: OPTION-CODE 12.
    static let optionCode: UInt16 = 12
    /// OPTION-CODE and OPTION-LENGTH, 16 bits each (RFC 6891 §6.1.2).
    static let optionHeaderSize = 4
    /// RFC 8467 §4.1: clients pad queries to the closest multiple of 128 octets.
    public static let queryBlockSize = 128

    /// The padding octets that make a message of `messageLength` octets (the padding option not
    /// counted yet) end on a multiple of `block` once the option and its padding are added. The
    /// option's own 4-octet header counts, so a message that is already a multiple still grows a block.
    public static func paddingLength(messageLength: Int, block: Int = queryBlockSize) -> Int {
        let withHeader = messageLength + optionHeaderSize
        return (block - withHeader % block) % block
    }

    /// The whole option (code, length, `length` zero octets), ready for `EDNSRecord.appending`.
    public static func option(paddingLength length: Int) -> [UInt8] {
        var option: [UInt8] = []
        option.appendBigEndian(optionCode)
        option.appendBigEndian(UInt16(length))
        return option + [UInt8](repeating: 0, count: length)
    }
}
