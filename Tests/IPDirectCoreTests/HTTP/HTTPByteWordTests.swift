import Testing
@testable import IPDirectCore

@Suite struct HTTPByteWordTests {
    /// Every byte value at every position of a word of class bytes, followed by bytes in and out of the class
    /// (a byte outside the class after the first must not change the count).
    private func checkEveryByteAtEveryPosition(_ inClass: (UInt8) -> Bool,
                                               _ count: (UnsafeRawBufferPointer) -> Int)
    {
        for position in 0..<HTTPByteWord.length {
            for byte in UInt8.min...UInt8.max {
                for filler in [UInt8(ascii: "a"), 0x00, 0x20, 0x22, 0x3E, 0x7F, 0x80, 0xFF, HTTPByte.cr] {
                    var word = [UInt8](repeating: UInt8(ascii: "x"), count: HTTPByteWord.length)
                    word[position] = byte
                    for later in position + 1..<word.count { word[later] = filler }
                    let expected = word.firstIndex { !inClass($0) } ?? word.count
                    #expect(word.withUnsafeBytes(count) == expected, "byte \(byte) at \(position), then \(filler)")
                }
            }
        }
    }

    @Test func countsTheFieldValueBytesBeforeTheFirstControlByte() {
        checkEveryByteAtEveryPosition({ $0 == HTTPByte.space || HTTPByte.isVisible($0) }) {
            HTTPByteWord.valuePrefixLength($0, at: 0)
        }
    }

    @Test func countsTheRequestTargetBytesBeforeTheFirstOtherByte() {
        checkEveryByteAtEveryPosition(HTTPByte.isTargetChar) { HTTPByteWord.targetPrefixLength($0, at: 0) }
    }

    @Test func countsTheStartLineBytesBeforeTheFirstCROrLF() {
        checkEveryByteAtEveryPosition({ $0 != HTTPByte.cr && $0 != HTTPByte.lf }) {
            HTTPByteWord.lineTextPrefixLength($0, at: 0)
        }
    }

    @Test func countsTheLettersDigitsAndHyphensOfAFieldNameBeforeAnyOtherByte() {
        checkEveryByteAtEveryPosition({ HTTPByte.isAlpha($0) || HTTPByte.isDigit($0) || $0 == UInt8(ascii: "-") }) {
            HTTPByteWord.namePrefixLength($0, at: 0)
        }
    }
}
