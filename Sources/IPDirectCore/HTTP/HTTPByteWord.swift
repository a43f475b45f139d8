/// Byte classes of `HTTPByte` tested eight bytes at a time, for the runs of plain bytes that make up most of
/// a head: each function counts how many bytes from `index` belong to the class before the first that does
/// not (8 when all do). The caller checks that eight bytes are there.
///
/// The tests flag a byte by setting its high bit. A subtraction borrows only from a byte that is flagged
/// itself, so bytes above the first flagged one may be flagged wrongly, but the first flag is always right,
/// and the first is all a count needs.
enum HTTPByteWord {
    static let length = MemoryLayout<UInt64>.size
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// SP or visible (VCHAR, obs-text): what a field value holds between its CTLs (HTAB, CR, LF, DEL...).
    @inline(__always)
    static func valuePrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let word = load(bytes, at: index)
        let flagged = below(HTTPByte.space, word) | equal(HTTPByte.delete, word)
        return flagged.trailingZeroBitCount / 8
    }

    /// `HTTPByte.isTargetChar`: above SP and below DEL, except `"`, `#`, `<` and `>`.
    @inline(__always)
    static func targetPrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let word = load(bytes, at: index)
        // '"' and '#' differ in their lowest bit only, '<' and '>' in the next one.
        let quoteOrHash = equal(HTTPByte.quote, word & (ones &* 0xFE))
        let angleBracket = equal(UInt8(ascii: "<"), word & (ones &* 0xFD))
        let flagged = below(HTTPByte.space + 1, word) | (word & highBits) | equal(HTTPByte.delete, word)
            | quoteOrHash | angleBracket
        return flagged.trailingZeroBitCount / 8
    }

    /// ASCII letters, digits and '-': what nearly every field name is made of; the other tchars are left to the
    /// caller's byte-by-byte test. Each byte is tested on its low seven bits, where adding a constant cannot
    /// carry into the next byte, so this count is exact without the first-flag argument.
    @inline(__always)
    static func namePrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let word = load(bytes, at: index)
        let low = word & ~highBits
        // Setting the case bit turns 'A'...'Z' into 'a'...'z' and no other byte into a letter.
        let folded = low | ones &* UInt64(HTTPByte.asciiCaseBit)
        let letter = atLeast(UInt8(ascii: "a"), folded) & ~atLeast(UInt8(ascii: "z") + 1, folded)
        let digit = atLeast(UInt8(ascii: "0"), low) & ~atLeast(UInt8(ascii: "9") + 1, low)
        let hyphen = ~((low ^ ones &* UInt64(UInt8(ascii: "-"))) &+ ones &* 0x7F) & highBits
        let outside = ~((letter | digit | hyphen) & ~word) & highBits
        return outside.trailingZeroBitCount / 8
    }

    /// Anything but CR and LF: the bytes of a start line before its end, whose grammar is checked afterwards.
    @inline(__always)
    static func lineTextPrefixLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let word = load(bytes, at: index)
        return (equal(HTTPByte.cr, word) | equal(HTTPByte.lf, word)).trailingZeroBitCount / 8
    }

    @inline(__always)
    private static func load(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
    }

    /// Flags the bytes of `low` (high bits clear) that are at least `limit` (at most 128), exactly.
    @inline(__always)
    private static func atLeast(_ limit: UInt8, _ low: UInt64) -> UInt64 {
        (low &+ ones &* UInt64(0x80 - limit)) & highBits
    }

    /// Flags the bytes below `limit` (at most 128).
    @inline(__always)
    private static func below(_ limit: UInt8, _ word: UInt64) -> UInt64 {
        (word &- ones &* UInt64(limit)) & ~word & highBits
    }

    /// Flags the bytes equal to `value`.
    @inline(__always)
    private static func equal(_ value: UInt8, _ word: UInt64) -> UInt64 {
        let zeroWhereEqual = word ^ (ones &* UInt64(value))
        return (zeroWhereEqual &- ones) & ~zeroWhereEqual & highBits
    }
}
