/// The EDNS(0) OPT pseudo-record (RFC 6891 §6.1) a DoH query carries its options in, such as
/// EDNS Client Subnet. c-ares 1.18's `ares_create_query` adds an OPT record without options or none
/// at all, so the record is appended to the message it built.
public enum EDNSRecord {
    /// RFC 6891 §6.1.1: TYPE 41.
    static let optType: UInt16 = 41
    /// RFC 6891 §6.2.3 CLASS: the requestor's UDP payload size. Over HTTP no datagram limits the answer,
    /// but the field must hold a value; 1232 is what DNS Flag Day 2020 settled on, so no server
    /// treats it as unusual.
    public static let payloadSize: UInt16 = 1232
    /// RFC 1035 §4.1.1: ARCOUNT is the last of the header's four 16-bit counts, at bytes 10-11.
    static let additionalCountOffset = 10
    static let headerSize = 12
    /// Root name (1), TYPE (2), CLASS (2), TTL (4) and RDLENGTH (2): the record before its options.
    static let fixedSize = 11

    /// `query` (a DNS message without an OPT record, additional section last) with one OPT record
    /// holding `options` (each a whole OPTION-CODE, OPTION-LENGTH, OPTION-DATA) appended and ARCOUNT
    /// raised by one; nil when `query` is shorter than a header or already has 65535 additional records.
    public static func appending(options: [[UInt8]], to query: [UInt8]) -> [UInt8]? {
        guard query.count >= headerSize else { return nil }
        let additional = UInt16(query[additionalCountOffset]) << 8 | UInt16(query[additionalCountOffset + 1])
        guard additional < UInt16.max else { return nil }
        let data = options.flatMap { $0 }
        guard data.count <= Int(UInt16.max) else { return nil }
        var message = query
        message[additionalCountOffset] = UInt8((additional + 1) >> 8)
        message[additionalCountOffset + 1] = UInt8((additional + 1) & 0xFF)
        // NAME: the root (RFC 6891 §6.1.2), then TYPE, CLASS, TTL (extended RCODE 0, version 0, DO and
        // the other flags clear: no DNSSEC records wanted), RDLENGTH and the options.
        message.append(0)
        message.appendBigEndian(optType)
        message.appendBigEndian(payloadSize)
        message += [0, 0, 0, 0]
        message.appendBigEndian(UInt16(data.count))
        message += data
        return message
    }

    /// `query` with an OPT record holding `options` and then a Padding option (RFC 7830) sized so the
    /// whole message is a multiple of `block` octets (RFC 8467 §4.1); nil as for `appending(options:to:)`.
    public static func appending(options: [[UInt8]], to query: [UInt8], paddedTo block: Int) -> [UInt8]? {
        let unpadded = query.count + fixedSize + options.reduce(0) { $0 + $1.count }
        let padding = EDNSPadding.paddingLength(messageLength: unpadded, block: block)
        return appending(options: options + [EDNSPadding.option(paddingLength: padding)], to: query)
    }
}
