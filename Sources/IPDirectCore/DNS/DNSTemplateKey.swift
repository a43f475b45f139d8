/// A question without the case of its letters, with its type and whether it asked with EDNS and DO, in
/// 128 bits: a keyed hash (`Hasher`, seeded per process, so nobody outside can pick a name whose key
/// equals another's and have its answer handed out for it) and an unkeyed one (FNV-1a). Templates keep
/// the key, not the name: two questions share a template only if both hashes agree.
public struct DNSTemplateKey: Hashable, Sendable {
    public var keyed: UInt64
    public var plain: UInt64

    public init(keyed: UInt64, plain: UInt64) {
        self.keyed = keyed
        self.plain = plain
    }

    private static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let fnvPrime: UInt64 = 0x0000_0100_0000_01b3

    /// `name`: the name in wire form (labels after their lengths, the root label last).
    public init(name: UnsafeRawBufferPointer, type: UInt16, edns: Bool, dnssecOK: Bool) {
        let shape = UInt8(edns ? 1 : 0) | (dnssecOK ? 2 : 0)
        var plain = Self.fnvOffset
        self = withUnsafeTemporaryAllocation(byteCount: name.count + 3, alignment: 1) { lowered in
            for (index, octet) in name.enumerated() {
                let lower = DNSName.lowercased(octet)
                lowered[index] = lower
                plain = (plain ^ UInt64(lower)) &* Self.fnvPrime
            }
            lowered[name.count] = UInt8(type >> 8)
            lowered[name.count + 1] = UInt8(truncatingIfNeeded: type)
            lowered[name.count + 2] = shape
            for octet in lowered[name.count...] { plain = (plain ^ UInt64(octet)) &* Self.fnvPrime }
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(lowered))
            return DNSTemplateKey(keyed: UInt64(UInt(bitPattern: hasher.finalize())), plain: plain)
        }
    }
}
