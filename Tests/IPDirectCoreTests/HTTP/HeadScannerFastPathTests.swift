import Testing
@testable import IPDirectCore

/// The field-line scanner skips runs of plain bytes sixteen and eight at a time. Here it must give exactly what a
/// byte-by-byte reading of RFC 9112 §5 gives, whatever byte lies at whatever position of a word or vector, for
/// lines that end exactly at the buffer's end (the narrower steps and single bytes) and lines followed by more.
@Suite struct HeadScannerFastPathTests {
    /// Bytes that end, split or break a field line, and some that only look like they might.
    static let specialBytes: [UInt8] = [
        HTTPByte.cr, HTTPByte.lf, 0x00, HTTPByte.tab, HTTPByte.space, HTTPByte.delete, HTTPByte.colon, 0x80, 0xFF,
        UInt8(ascii: "_"), UInt8(ascii: "{"), UInt8(ascii: "@"), UInt8(ascii: "-"), UInt8(ascii: "Z"),
    ]
    static let nameLetters: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: "B"), UInt8(ascii: "7")]
    static let nameLengths = [1, 2, 7, 8, 9, 14, 15, 16, 17, 31, 32, 33, 100]
    static let valueLengths = [0, 1, 5, 6, 7, 8, 9, 15, 16, 17, 24, 33]

    @Test(arguments: nameLengths)
    func agreesWithAByteByByteReadingWhereverASpecialByteLies(nameLength: Int) {
        for valueLength in Self.valueLengths {
            let name: [UInt8] = (0..<nameLength).map { $0 % 5 == 4 ? UInt8(ascii: "-") : Self.nameLetters[$0 % 3] }
            let value: [UInt8] = (0..<valueLength).map { $0 % 4 == 3 ? HTTPByte.space : UInt8(ascii: "v") }
            let line = name + [HTTPByte.colon, HTTPByte.space] + value + [HTTPByte.cr, HTTPByte.lf]
            for position in 0..<line.count {
                for special in Self.specialBytes {
                    var changed = line
                    changed[position] = special
                    for padding in [0, 1, 9, 20] {
                        let bytes = changed + [UInt8](repeating: UInt8(ascii: "x"), count: padding)
                        for end in [changed.count, bytes.count] {
                            let scanned = bytes.withUnsafeBytes { HeadScanner.scanFieldLine($0, at: 0, end: end) }
                            let expected = bytes.withUnsafeBytes { Self.readByteByByte($0, end: end) }
                            #expect(scanned == expected,
                                    "name \(nameLength), value \(valueLength), \(special) at \(position), end \(end)")
                        }
                    }
                }
            }
        }
    }

    @Test func findsTheEndOfAStartLineWhereverTheCRLFLies() {
        for length in 0..<40 {
            let line = [UInt8](repeating: UInt8(ascii: "a"), count: length) + [HTTPByte.cr, HTTPByte.lf]
            for padding in [0, 16] {
                let bytes = line + [UInt8](repeating: UInt8(ascii: "x"), count: padding)
                let found = bytes.withUnsafeBytes { HeadScanner.findLineEnd($0, from: 0, end: $0.count) }
                #expect(found == .found(length), "length \(length), padding \(padding)")
                var bare = bytes
                bare[length] = HTTPByte.lf
                let refused = bare.withUnsafeBytes { HeadScanner.findLineEnd($0, from: 0, end: $0.count) }
                #expect(refused == .invalid(.bareLF), "length \(length), padding \(padding)")
            }
        }
    }

    /// RFC 9112 §5 one byte at a time, with the scanner's failures in the scanner's order.
    private static func readByteByByte(_ bytes: UnsafeRawBufferPointer, end: Int) -> HeadScanner.FieldLine {
        guard end > 0 else { return .incomplete }
        if bytes[0] == HTTPByte.cr {
            guard end > 1 else { return .incomplete }
            return bytes[1] == HTTPByte.lf ? .endOfSection(next: 2) : .invalid(.bareCR)
        }
        var index = 0
        while index < end, HTTPByte.isTokenChar(bytes[index]) { index += 1 }
        guard index < end else { return .incomplete }
        let nameEnd = index
        let stop = bytes[index]
        if stop == HTTPByte.lf { return .invalid(.bareLF) }
        if nameEnd == 0 {
            if HTTPByte.isWhitespace(stop) { return .invalid(.obsFold) }
            return .invalid(stop == HTTPByte.colon ? .emptyFieldName : .invalidFieldName)
        }
        if stop != HTTPByte.colon {
            if HTTPByte.isWhitespace(stop) { return .invalid(.whitespaceBeforeColon) }
            return .invalid(stop == HTTPByte.cr ? .missingColon : .invalidFieldName)
        }
        index += 1
        while index < end, HTTPByte.isWhitespace(bytes[index]) { index += 1 }
        let valueStart = index
        while index < end {
            let byte = bytes[index]
            if byte == HTTPByte.cr {
                guard index + 1 < end else { return .incomplete }
                guard bytes[index + 1] == HTTPByte.lf else { return .invalid(.bareCR) }
                var valueEnd = index
                while valueEnd > valueStart, HTTPByte.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
                return .field(HeaderField(name: 0..<nameEnd, value: valueStart..<valueEnd), next: index + 2)
            }
            if byte == HTTPByte.lf { return .invalid(.bareLF) }
            if byte < HTTPByte.space && byte != HTTPByte.tab || byte == HTTPByte.delete {
                return .invalid(.controlCharacterInValue)
            }
            index += 1
        }
        return .incomplete
    }
}
