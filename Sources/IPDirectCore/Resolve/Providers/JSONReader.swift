/// A small strict RFC 8259 JSON reader for HTTPDNS answers.
///
/// Hand-written rather than Foundation's JSONDecoder because IPDirectCore stays free of Foundation
/// (one small static binary; FoundationEssentials alone would be the only Foundation user), and
/// because answers come from the network: the reader bounds input size and nesting depth, refuses
/// duplicate member names, invalid UTF-8, unescaped control characters, lone surrogates and
/// anything after the value, where lenient parsers guess.
public struct JSONReader {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The text is longer than the reader accepts.
        case tooLarge(size: Int, limit: Int)
        /// Arrays and objects nest deeper than the reader accepts.
        case tooDeep(limit: Int)
        /// The text ended inside a value.
        case unexpectedEnd
        /// A byte that the grammar does not allow here.
        case unexpectedByte(UInt8, offset: Int)
        /// A string that is not UTF-8 or holds an invalid escape.
        case invalidString(offset: Int)
        /// RFC 8259 §4: names should be unique; two spellings of one field would be ambiguous.
        case duplicateName(String)
        /// A complete value was followed by more than whitespace.
        case trailingBytes(offset: Int)

        public var description: String {
            switch self {
            case .tooLarge(let size, let limit): return "JSON text of \(size) bytes exceeds the \(limit)-byte limit"
            case .tooDeep(let limit): return "JSON nests deeper than \(limit) levels"
            case .unexpectedEnd: return "JSON text ends inside a value"
            case .unexpectedByte(let byte, let offset):
                return "unexpected byte 0x\(String(byte, radix: 16)) in JSON at offset \(offset)"
            case .invalidString(let offset): return "invalid JSON string at offset \(offset)"
            case .duplicateName(let name): return "JSON object repeats the member \(LogQuote.singleQuoted(name))"
            case .trailingBytes(let offset): return "JSON text continues after the value at offset \(offset)"
            }
        }
    }

    /// Default size bound: HTTPDNS answers are a few hundred bytes; 64 KiB leaves room for long lists.
    public static let defaultSizeLimit = 64 * 1024
    /// Default depth bound: answers nest three levels (object, array, record object).
    public static let defaultDepthLimit = 16

    private let bytes: [UInt8]
    private let depthLimit: Int
    private var offset = 0

    /// Parses `bytes` as one JSON text (RFC 8259 §2), whitespace allowed around it.
    public static func parse(_ bytes: [UInt8], sizeLimit: Int = defaultSizeLimit,
                             depthLimit: Int = defaultDepthLimit) -> Result<JSONValue, Failure> {
        guard bytes.count <= sizeLimit else { return .failure(.tooLarge(size: bytes.count, limit: sizeLimit)) }
        var reader = JSONReader(bytes: bytes, depthLimit: depthLimit)
        do throws(Failure) {
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            guard reader.offset == bytes.count else { throw Failure.trailingBytes(offset: reader.offset) }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    private init(bytes: [UInt8], depthLimit: Int) {
        self.bytes = bytes
        self.depthLimit = depthLimit
    }

    private mutating func readValue(depth: Int) throws(Failure) -> JSONValue {
        skipWhitespace()
        guard let byte = peek() else { throw Failure.unexpectedEnd }
        switch byte {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        default: throw Failure.unexpectedByte(byte, offset: offset)
        }
    }

    private mutating func readObject(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= depthLimit else { throw Failure.tooDeep(limit: depthLimit) }
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { offset += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard let byte = peek() else { throw Failure.unexpectedEnd }
            guard byte == UInt8(ascii: "\"") else { throw Failure.unexpectedByte(byte, offset: offset) }
            let name = try readString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            let value = try readValue(depth: depth)
            guard members.updateValue(value, forKey: name) == nil else { throw Failure.duplicateName(name) }
            skipWhitespace()
            if try expectEither(UInt8(ascii: ","), or: UInt8(ascii: "}")) { return .object(members) }
        }
    }

    private mutating func readArray(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= depthLimit else { throw Failure.tooDeep(limit: depthLimit) }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { offset += 1; return .array(elements) }
        while true {
            elements.append(try readValue(depth: depth))
            skipWhitespace()
            if try expectEither(UInt8(ascii: ","), or: UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    /// RFC 8259 §7: escapes, \uXXXX with surrogate pairs, no raw control characters.
    private mutating func readString() throws(Failure) -> String {
        let start = offset
        offset += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek() else { throw Failure.unexpectedEnd }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw Failure.invalidString(offset: start) }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = peek() else { throw Failure.unexpectedEnd }
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8 += try readUnicodeEscape(stringStart: start)
                default: throw Failure.invalidString(offset: start)
                }
            case 0x00..<0x20:
                throw Failure.invalidString(offset: start)
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func readUnicodeEscape(stringStart: Int) throws(Failure) -> [UInt8] {
        let high = try readHexQuad(stringStart: stringStart)
        var scalarValue = UInt32(high)
        if (0xD800...0xDBFF).contains(high) {
            guard peek() == UInt8(ascii: "\\") else { throw Failure.invalidString(offset: stringStart) }
            offset += 1
            guard peek() == UInt8(ascii: "u") else { throw Failure.invalidString(offset: stringStart) }
            offset += 1
            let low = try readHexQuad(stringStart: stringStart)
            guard (0xDC00...0xDFFF).contains(low) else { throw Failure.invalidString(offset: stringStart) }
            scalarValue = 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw Failure.invalidString(offset: stringStart) }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func readHexQuad(stringStart: Int) throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw Failure.unexpectedEnd }
            guard let nibble = HTTPByte.hexValue(byte) else { throw Failure.invalidString(offset: stringStart) }
            value = value << 4 | UInt16(nibble)
            offset += 1
        }
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func readNumber() throws(Failure) -> String {
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        if peek() == UInt8(ascii: "0") {
            offset += 1
        } else {
            try readDigits()
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            try readDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            try readDigits()
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func readDigits() throws(Failure) {
        guard let first = peek() else { throw Failure.unexpectedEnd }
        guard isDigit(first) else { throw Failure.unexpectedByte(first, offset: offset) }
        while let byte = peek(), isDigit(byte) { offset += 1 }
    }

    private mutating func expectLiteral(_ literal: String) throws(Failure) {
        for expected in literal.utf8 { try expect(expected) }
    }

    private mutating func expect(_ expected: UInt8) throws(Failure) {
        guard let byte = peek() else { throw Failure.unexpectedEnd }
        guard byte == expected else { throw Failure.unexpectedByte(byte, offset: offset) }
        offset += 1
    }

    /// Consumes `separator` (returning false) or `terminator` (returning true).
    private mutating func expectEither(_ separator: UInt8, or terminator: UInt8) throws(Failure) -> Bool {
        guard let byte = peek() else { throw Failure.unexpectedEnd }
        guard byte == separator || byte == terminator else { throw Failure.unexpectedByte(byte, offset: offset) }
        offset += 1
        return byte == terminator
    }

    /// RFC 8259 §2: space, tab, line feed and carriage return only.
    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    private func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
