import Testing
@testable import IPDirectCore

@Suite struct HTTPByteWordTests {
    private func checkEveryByteAtEveryPosition(_ inClass: (UInt8) -> Bool,
                                               _ count: (UnsafeRawBufferPointer) -> Int)
    {
        IPDirectCoreTests.checkEveryByteAtEveryPosition(length: HTTPByteWord.length, inClass, count)
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
