import Testing
@testable import IPDirectCore

@Suite struct HeadScannerTests {
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
