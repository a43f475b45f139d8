/// Writes the bytes of a rewritten head into a `HeadBuffer`'s room, whose size the rewriter bounds in advance.
/// Growing an array append by append, through generic `append(contentsOf:)`, cost more than the copying
/// itself; here every piece is one bounds check and one copy.
struct HeadOutput {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    /// Writes at `base`, which has room for `capacity` bytes. Writing more is a programming error and stops the
    /// process rather than write past the room.
    init(base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        append(UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    mutating func append(_ literal: StaticString) {
        append(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "rewritten head larger than its bound")
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// A status code of three digits (RFC 9112 §4), as the status line parser accepted it.
    mutating func appendStatus(_ status: Int) {
        precondition((100...999).contains(status), "status code of more than three digits")
        append(UInt8(ascii: "0") + UInt8(status / 100))
        append(UInt8(ascii: "0") + UInt8(status / 10 % 10))
        append(UInt8(ascii: "0") + UInt8(status % 10))
    }

    private mutating func append(_ piece: UnsafeRawBufferPointer) {
        guard let source = piece.baseAddress else { return }
        precondition(piece.count <= capacity - count, "rewritten head larger than its bound")
        (base + count).copyMemory(from: source, byteCount: piece.count)
        count += piece.count
    }
}
