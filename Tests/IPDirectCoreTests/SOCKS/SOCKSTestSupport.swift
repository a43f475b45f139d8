import Testing
@testable import IPDirectCore

/// The bytes of a SOCKS message, built from readable parts: numbers are bytes, strings their UTF-8.
struct SOCKSBytes: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]

    init(_ parts: [any SOCKSBytePart]) {
        bytes = parts.flatMap { $0.socksBytes }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    func parsed<Message>(_ parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>) -> SOCKSParse<Message> {
        bytes.withUnsafeBytes(parse)
    }

    /// The message, or a recorded issue naming what came back instead; its length must be `expectedLength`.
    func message<Message>(_ parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>, length expectedLength: Int? = nil,
                          sourceLocation: SourceLocation = #_sourceLocation) -> Message?
    {
        let outcome = parsed(parse)
        guard case .complete(let message, let length) = outcome else {
            Issue.record("expected a complete message, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(length == (expectedLength ?? bytes.count), sourceLocation: sourceLocation)
        return message
    }

    /// Each of the first 0...count-1 bytes must ask for more: a parser that decides early on a prefix
    /// would read a message the client never finished, or refuse one it was still sending.
    func expectEveryStrictPrefixIncomplete<Message>(_ parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>,
                                                    sourceLocation: SourceLocation = #_sourceLocation)
    {
        for count in 0..<bytes.count {
            let outcome = Array(bytes[..<count]).withUnsafeBytes(parse)
            guard case .incomplete = outcome else {
                Issue.record("prefix of \(count) bytes: \(outcome)", sourceLocation: sourceLocation)
                continue
            }
        }
    }

    /// The refusal's reason, or a recorded issue naming what came back instead.
    func refusal<Message>(_ parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>,
                          sourceLocation: SourceLocation = #_sourceLocation) -> String?
    {
        let outcome = parsed(parse)
        guard case .invalid(let reason) = outcome else {
            Issue.record("expected invalid, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return reason
    }

    var testDescription: String { bytes.map(String.init).joined(separator: " ") }
}

protocol SOCKSBytePart: Sendable {
    var socksBytes: [UInt8] { get }
}

extension Int: SOCKSBytePart {
    var socksBytes: [UInt8] { [UInt8(self)] }
}

extension String: SOCKSBytePart {
    var socksBytes: [UInt8] { Array(utf8) }
}

extension Array: SOCKSBytePart where Element == UInt8 {
    var socksBytes: [UInt8] { self }
}

/// A port as DST.PORT carries it, most significant byte first.
struct NetworkPort: SOCKSBytePart {
    let value: UInt16
    init(_ value: UInt16) { self.value = value }
    var socksBytes: [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}

/// Bytes that must be refused, with a reason containing `because`; `label` names the case in the report.
struct SOCKSRejection: Sendable, CustomTestStringConvertible {
    let label: String
    let because: String
    let input: SOCKSBytes

    init(_ label: String, because: String, _ parts: [any SOCKSBytePart]) {
        self.label = label
        self.because = because
        input = SOCKSBytes(parts)
    }

    var testDescription: String { label }

    func expectRefused<Message>(by parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>,
                                sourceLocation: SourceLocation = #_sourceLocation)
    {
        guard let reason = input.refusal(parse, sourceLocation: sourceLocation) else { return }
        #expect(reason.contains(because), "\(reason)", sourceLocation: sourceLocation)
        #expect(reason.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "reason not printable ASCII", sourceLocation: sourceLocation)
    }
}
