/// Why a DNS message could not be read. Nothing in it is trusted: every length and pointer is checked
/// against the message before it is followed.
public enum DNSWireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The message ends inside a field.
    case truncated
    /// A label longer than 63 octets (RFC 1035 §2.3.4), or a label type other than a length or a pointer.
    case badLabel
    /// A name longer than 255 octets in wire form (RFC 1035 §2.3.4).
    case nameTooLong
    /// A compression pointer that does not point to an earlier name (which is how loops are made).
    case badPointer

    public var description: String {
        switch self {
        case .truncated: return "message ends inside a field"
        case .badLabel: return "label over 63 octets or of an unknown type"
        case .nameTooLong: return "name over 255 octets"
        case .badPointer: return "compression pointer that does not point backwards"
        }
    }
}

/// Reads the fields of a DNS message (RFC 1035 §4.1) from the front, checking each length.
struct DNSWireReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    /// A label's length octet: the two top bits say what it is (RFC 1035 §4.1.4).
    private static let labelKindMask: UInt8 = 0xC0
    private static let pointerKind: UInt8 = 0xC0
    static let maximumLabelLength = 63
    static let maximumNameLength = 255

    init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(DNSWireError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(DNSWireError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32() throws(DNSWireError) -> UInt32 {
        let high = try u16()
        return UInt32(high) << 16 | UInt32(try u16())
    }

    mutating func skip(_ count: Int) throws(DNSWireError) {
        guard count >= 0, remaining >= count else { throw .truncated }
        offset += count
    }

    /// A resource record's owner and fixed fields (RFC 1035 §4.1.3); the reader is left at its data.
    mutating func recordHeader() throws(DNSWireError) -> DNSRecordHeader {
        DNSRecordHeader(owner: try name(), type: try u16(), dnsClass: try u16(), ttl: try u32(), dataLength: Int(try u16()))
    }

    /// A name, expanded: its labels as they are on the wire (case kept), without the root label. A pointer
    /// must point before the start of the labels it continues, so every jump goes backwards and a loop is
    /// impossible; the reader's own position ends after the first pointer or the root label.
    mutating func name() throws(DNSWireError) -> DNSName {
        var labels: [[UInt8]] = []
        var wireLength = 1
        var position = offset
        var resumeAt: Int?
        var lowestStart = offset
        while true {
            guard position < bytes.count else { throw .truncated }
            let length = bytes[position]
            if length & Self.labelKindMask == Self.pointerKind {
                guard position + 1 < bytes.count else { throw .truncated }
                let target = Int(length & ~Self.labelKindMask) << 8 | Int(bytes[position + 1])
                guard target < lowestStart else { throw .badPointer }
                if resumeAt == nil { resumeAt = position + 2 }
                lowestStart = target
                position = target
                continue
            }
            guard length & Self.labelKindMask == 0 else { throw .badLabel }
            if length == 0 {
                offset = resumeAt ?? position + 1
                return DNSName(labels: labels)
            }
            let count = Int(length)
            wireLength += count + 1
            guard wireLength <= Self.maximumNameLength else { throw .nameTooLong }
            guard position + 1 + count <= bytes.count else { throw .truncated }
            labels.append(Array(bytes[(position + 1)..<(position + 1 + count)]))
            position += 1 + count
        }
    }
}

/// The fields of a resource record before its data.
struct DNSRecordHeader {
    let owner: DNSName
    let type: UInt16
    let dnsClass: UInt16
    let ttl: UInt32
    let dataLength: Int
}
