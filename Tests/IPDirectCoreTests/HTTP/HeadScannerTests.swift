import Testing
@testable import IPDirectCore

@Suite struct HeadScannerTests {
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte == HTTPByte.space || HTTPByte.isVisible(byte)
    }

    @Test func countsThePlainValueBytesBeforeTheFirstControlByteOfAWord() {
        // Every byte value at every position of a word of plain bytes, with plain and control bytes after it
        // (a control byte past the first must not change the count).
        for position in 0..<HeadScanner.ValueWord.length {
            for byte in UInt8.min...UInt8.max {
                for filler in [UInt8(ascii: "a"), 0x00, 0x7F, 0xFF, HTTPByte.cr] {
                    var word = [UInt8](repeating: UInt8(ascii: "x"), count: HeadScanner.ValueWord.length)
                    word[position] = byte
                    for later in position + 1..<word.count { word[later] = filler }
                    let expected = word.firstIndex { !Self.isPlain($0) } ?? word.count
                    let counted = word.withUnsafeBytes { HeadScanner.ValueWord.plainPrefixLength($0, at: 0) }
                    #expect(counted == expected, "byte \(byte) at \(position), then \(filler)")
                }
            }
        }
    }

    @Test(arguments: [
        ("X: \t a\u{7F}b\r\n", HeadScanner.Failure.controlCharacterInValue),
        ("X: 0123456789abcdef\u{0B}\r\n", .controlCharacterInValue),
        ("X: 0123456789abcdef\n", .bareLF),
        ("X: 0123456789abcdefg\rx\r\n", .bareCR),
    ])
    func refusesAControlByteAnywhereInALongValue(line: String, failure: HeadScanner.Failure) {
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBytes { HeadScanner.scanFieldLine($0, at: 0, end: $0.count) }
        #expect(result == .invalid(failure))
    }

    @Test func trimsWhitespaceAroundALongValueAndKeepsItInside() {
        let line = "Name:\t  one two\tthree four five six seven \t \r\n"
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBytes { HeadScanner.scanFieldLine($0, at: 0, end: $0.count) }
        guard case .field(let field, let next) = result else {
            Issue.record("expected a field, got \(result)")
            return
        }
        #expect(String(decoding: bytes[field.value], as: UTF8.self) == "one two\tthree four five six seven")
        #expect(next == bytes.count)
    }
}
