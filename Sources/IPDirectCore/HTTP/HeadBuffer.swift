/// The bytes of a rewritten head, in storage that the next head written into the same buffer reuses. A
/// connection rewrites two heads per exchange; allocating an array for each cost more than writing them.
/// A value like any other: a copy shares the storage until either side writes, which then gets storage of
/// its own.
public struct HeadBuffer: Equatable, @unchecked Sendable {
    /// Room for a head, its size in the header. Not an array: a new array of bytes is allocated through
    /// unspecialised library code that looks its type up at run time, several times the cost of this.
    @usableFromInline final class Storage: ManagedBuffer<Int, UInt8> {}

    @usableFromInline var storage: Storage?
    /// How many bytes of the storage are the head.
    public private(set) var count = 0

    /// The smallest storage made, so that small heads of different sizes do not each grow it.
    static let minimumCapacity = 512

    public init() {}

    public init(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { source in
            write(capacity: source.count) { $0.append(source, 0..<source.count) }
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// Bytes of storage held, whatever the head's size.
    public var capacity: Int {
        // Through the pointer: the `header` property checks exclusive access at run time in this module.
        storage?.withUnsafeMutablePointerToHeader { $0.pointee } ?? 0
    }

    /// Holds no head, and keeps its storage for the next one unless it holds more than `limit` bytes.
    mutating func empty(keepingAtMost limit: Int) {
        count = 0
        if capacity > limit { storage = nil }
    }

    /// The head's bytes as an array of their own.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let storage else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try HeadBuffer.withElements(of: .passUnretained(storage)) { try body(UnsafeRawBufferPointer(start: $0, count: count)) }
    }

    /// The storage's bytes, the storage borrowed for `body` rather than retained: the value that holds it holds
    /// it throughout. Handed over unmanaged: a plain parameter would be retained for the call.
    @inlinable
    static func withElements<Result>(of storage: Unmanaged<Storage>, _ body: (UnsafeMutablePointer<UInt8>) throws -> Result)
        rethrows -> Result {
        try storage._withUnsafeGuaranteedRef { try $0.withUnsafeMutablePointerToElements(body) }
    }

    /// Replaces the head with what `write` puts into an output of at most `capacity` bytes.
    mutating func write(capacity: Int, _ write: (inout HeadOutput) -> Void) {
        if self.capacity < capacity || !isKnownUniquelyReferenced(&storage) {
            let size = max(capacity, HeadBuffer.minimumCapacity)
            storage = unsafeDowncast(Storage.create(minimumCapacity: size) { _ in size }, to: Storage.self)
        }
        count = HeadBuffer.withElements(of: .passUnretained(storage.unsafelyUnwrapped)) { base in
            var output = HeadOutput(base: UnsafeMutableRawPointer(base), capacity: capacity)
            write(&output)
            return output.count
        }
    }

    public static func == (lhs: HeadBuffer, rhs: HeadBuffer) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in left.elementsEqual(right) } }
    }
}
