import IPDirectCore

/// Assembles DNS response messages byte by byte (RFC 1035 §4.1), so tests control every field:
/// flags, counts, compression pointers, and messages that are wrong on purpose.
struct DNSMessageBuilder {
    /// How a name is written: plain labels, a compression pointer to an earlier name, or labels
    /// followed by a pointer (RFC 1035 §4.1.4).
    enum Name {
        case labels(String)
        case pointer(Int)
        case labelsThenPointer(String, Int)
    }

    /// The question name always starts right after the 12-byte header.
    static let questionNameOffset = 12
    static let typeA: UInt16 = 1
    static let typeCNAME: UInt16 = 5
    static let typeAAAA: UInt16 = 28
    static let classIN: UInt16 = 1
    static let rcodeNoError: UInt8 = 0
    static let rcodeServFail: UInt8 = 2
    static let rcodeNXDomain: UInt8 = 3
    static let rcodeRefused: UInt8 = 5

    private(set) var bytes: [UInt8] = []
    private var answerCount: UInt16 = 0

    /// A header with QR and RD set (RA too: the server recursed), then one question.
    init(question: String, type: UInt16, rcode: UInt8 = rcodeNoError, isResponse: Bool = true,
         truncated: Bool = false, questionCount: UInt16 = 1) {
        var flags: UInt16 = 0x0100 | 0x0080 | UInt16(rcode)
        if isResponse { flags |= 0x8000 }
        if truncated { flags |= 0x0200 }
        bytes = [0, 0]
        append16(flags)
        append16(questionCount)
        append16(0)  // answers, patched as records are added
        append16(0)  // authority
        append16(0)  // additional
        if questionCount > 0 {
            appendName(.labels(question))
            append16(type)
            append16(Self.classIN)
        }
    }

    /// Adds an A or AAAA record, the type taken from the address.
    mutating func addAddress(owner: Name, _ text: String, ttl: UInt32) {
        let address = IPAddress(text)!
        addRecord(owner: owner, type: address.isIPv6 ? Self.typeAAAA : Self.typeA, ttl: ttl) { builder in
            builder.bytes += address.bytes
        }
    }

    /// Adds a CNAME record; returns the offset its target name starts at, for later pointers.
    @discardableResult
    mutating func addCNAME(owner: Name, target: Name, ttl: UInt32) -> Int {
        var targetOffset = 0
        addRecord(owner: owner, type: Self.typeCNAME, ttl: ttl) { builder in
            targetOffset = builder.bytes.count
            builder.appendName(target)
        }
        return targetOffset
    }

    /// Adds a record whose data is given raw, e.g. of a length that does not fit its type.
    mutating func addRecord(owner: Name, type: UInt16, ttl: UInt32, data: [UInt8]) {
        addRecord(owner: owner, type: type, ttl: ttl) { $0.bytes += data }
    }

    private mutating func addRecord(owner: Name, type: UInt16, ttl: UInt32, data: (inout DNSMessageBuilder) -> Void) {
        appendName(owner)
        append16(type)
        append16(Self.classIN)
        append16(UInt16(ttl >> 16))
        append16(UInt16(ttl & 0xFFFF))
        let lengthOffset = bytes.count
        append16(0)
        data(&self)
        let length = bytes.count - lengthOffset - 2
        bytes[lengthOffset] = UInt8(length >> 8)
        bytes[lengthOffset + 1] = UInt8(length & 0xFF)
        answerCount += 1
        bytes[6] = UInt8(answerCount >> 8)
        bytes[7] = UInt8(answerCount & 0xFF)
    }

    private mutating func appendName(_ name: Name) {
        switch name {
        case .labels(let text):
            appendLabels(text)
            bytes.append(0)
        case .pointer(let offset):
            appendPointer(offset)
        case .labelsThenPointer(let text, let offset):
            appendLabels(text)
            appendPointer(offset)
        }
    }

    private mutating func appendLabels(_ text: String) {
        for label in text.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
    }

    private mutating func appendPointer(_ offset: Int) {
        append16(0xC000 | UInt16(offset))
    }

    private mutating func append16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }
}
