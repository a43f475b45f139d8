import Testing
@testable import IPDirectCore

@Suite struct HTTPByteVectorTests {
    /// The classes `HTTPByteVector` counts, each with the byte-by-byte test it must agree with.
    enum ByteClass: CaseIterable {
        case fieldValue, startLineText, fieldName, requestTarget

        func contains(_ byte: UInt8) -> Bool {
            switch self {
            case .fieldValue: return byte == HTTPByte.space || HTTPByte.isVisible(byte)
            case .startLineText: return byte != HTTPByte.cr && byte != HTTPByte.lf
            case .fieldName: return HTTPByte.isAlpha(byte) || HTTPByte.isDigit(byte) || byte == UInt8(ascii: "-")
            case .requestTarget: return HTTPByte.isTargetChar(byte)
            }
        }

        func prefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
            switch self {
            case .fieldValue: return HTTPByteVector.valuePrefixLength(bytes, at: index)
            case .startLineText: return HTTPByteVector.lineTextPrefixLength(bytes, at: index)
            case .fieldName: return HTTPByteVector.namePrefixLength(bytes, at: index)
            case .requestTarget: return HTTPByteVector.targetPrefixLength(bytes, at: index)
            }
        }
    }

    /// Every byte value at every one of the sixteen positions, so both halves of the vector and the step from one
    /// to the other are covered.
    @Test(arguments: ByteClass.allCases)
    func countsTheClassBytesBeforeTheFirstOtherByte(_ byteClass: ByteClass) {
        checkEveryByteAtEveryPosition(length: HTTPByteVector.length, byteClass.contains) {
            byteClass.prefixLength($0, at: 0)
        }
    }

    @Test func readsSixteenBytesFromAnyOffset() {
        let bytes = Array("0123456789abcdef-ABCDEFGHIJKLMNOP:".utf8)
        for offset in 0...(bytes.count - HTTPByteVector.length) {
            let expected = min(HTTPByteVector.length, bytes.count - 1 - offset)
            #expect(bytes.withUnsafeBytes { HTTPByteVector.namePrefixLength($0, at: offset) } == expected)
        }
    }
}
