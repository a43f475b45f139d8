/// The byte classes of `HTTPByteWord`, tested sixteen bytes at a time with the standard library's SIMD types:
/// each function counts how many bytes from `index` belong to the class before the first that does not (16 when
/// all do). The caller checks that sixteen bytes are there.
///
/// On x86-64 each test compiles to a few SSE2 compares and a bit scan, about a third of the instructions of two
/// `HTTPByteWord` tests. Only comparisons of a vector with a constant are used (`.<`, `.==`) and masks are
/// combined as byte lanes: the same tests written with `.>=` or `.!` on masks were compiled one lane at a time.
enum HTTPByteVector {
    static let length = 16
    private typealias Lanes = SIMD16<UInt8>
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// `HTTPByteWord.valuePrefixLength`: SP or visible (VCHAR, obs-text).
    @inline(__always)
    static func valuePrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lanes = load(bytes, at: index)
        let control = flags(lanes .< Lanes(repeating: HTTPByte.space)) | flags(lanes .== Lanes(repeating: HTTPByte.delete))
        return firstFlagged(control)
    }

    /// `HTTPByteWord.namePrefixLength`: ASCII letters, digits and '-'.
    @inline(__always)
    static func namePrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lanes = load(bytes, at: index)
        // Setting the case bit turns 'A'...'Z' into 'a'...'z' and no other byte into a letter; subtracting the
        // first member of a range wraps every byte below it round to the top, so one unsigned compare tests both ends.
        let letterOffset = (lanes | Lanes(repeating: HTTPByte.asciiCaseBit)) &- Lanes(repeating: UInt8(ascii: "a"))
        let digitOffset = lanes &- Lanes(repeating: UInt8(ascii: "0"))
        let letterCount = UInt8(ascii: "z") - UInt8(ascii: "a") + 1
        let digitCount = UInt8(ascii: "9") - UInt8(ascii: "0") + 1
        let member = flags(letterOffset .< Lanes(repeating: letterCount)) | flags(digitOffset .< Lanes(repeating: digitCount))
            | flags(lanes .== Lanes(repeating: UInt8(ascii: "-")))
        return firstFlagged(~member)
    }

    /// `HTTPByteWord.targetPrefixLength`: above SP and below DEL, except `"`, `#`, `<` and `>`.
    @inline(__always)
    static func targetPrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lanes = load(bytes, at: index)
        let visibleOffset = lanes &- Lanes(repeating: HTTPByte.space + 1)
        let visibleCount = HTTPByte.delete - (HTTPByte.space + 1)
        let excluded = flags(lanes .== Lanes(repeating: HTTPByte.quote)) | flags(lanes .== Lanes(repeating: HTTPByte.hash))
            | flags(lanes .== Lanes(repeating: UInt8(ascii: "<"))) | flags(lanes .== Lanes(repeating: UInt8(ascii: ">")))
        return firstFlagged(~(flags(visibleOffset .< Lanes(repeating: visibleCount)) & ~excluded))
    }

    /// `HTTPByteWord.lineTextPrefixLength`: anything but CR and LF.
    @inline(__always)
    static func lineTextPrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lanes = load(bytes, at: index)
        return firstFlagged(flags(lanes .== Lanes(repeating: HTTPByte.cr)) | flags(lanes .== Lanes(repeating: HTTPByte.lf)))
    }

    @inline(__always)
    private static func load(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Lanes {
        bytes.baseAddress.unsafelyUnwrapped.loadUnaligned(fromByteOffset: index, as: Lanes.self)
    }

    /// 0xFF in the lanes the mask selects, 0 in the others.
    @inline(__always)
    private static func flags(_ mask: SIMDMask<SIMD16<Int8>>) -> Lanes {
        Lanes(repeating: 0).replacing(with: 0xFF, where: mask)
    }

    /// The index of the first lane with its high bit set, or 16.
    @inline(__always)
    private static func firstFlagged(_ flagged: Lanes) -> Int {
        let halves = unsafeBitCast(flagged, to: SIMD2<UInt64>.self)
        let low = UInt64(littleEndian: halves[0]) & highBits
        if low != 0 { return low.trailingZeroBitCount / 8 }
        let high = UInt64(littleEndian: halves[1]) & highBits
        return HTTPByteWord.length + high.trailingZeroBitCount / 8
    }
}
