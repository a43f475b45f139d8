/// A host name with its hash taken once, when the value is made. A request looks its name up several times
/// (in `[hosts]` or the resolver cache, in the address table, in the pool), and hashing the text each time
/// cost more than the lookups themselves.
///
/// The one hash of the text is the standard library's, keyed per process, so names chosen by strangers
/// cannot be made to collide.
public struct HashedHostName: PrehashedKey, Sendable, CustomStringConvertible {
    public let text: String
    public let textHash: Int

    public init(_ text: String) {
        self.text = text
        textHash = text.hashValue
    }

    public static func == (left: HashedHostName, right: HashedHostName) -> Bool {
        left.textHash == right.textHash && left.text == right.text
    }

    public var prehash: Int { textHash }

    public var description: String { text }
}

/// A key made of a `HashedHostName` and a number or two (`UpstreamHostKey`, `UpstreamPoolKey`,
/// `ResolverCacheKey`), whose parts are hashed already: it gives a dictionary `prehash` as its raw hash,
/// mixed with the dictionary's seed, rather than feeding it through a `Hasher`, which costs more than the
/// rest of a lookup.
public protocol PrehashedKey: Hashable {
    /// The parts' hashes in one number; equal keys have equal ones.
    var prehash: Int { get }
}

extension PrehashedKey {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(prehash)
    }

    public func _rawHashValue(seed: Int) -> Int {
        PrehashedKeys.mix(prehash, seed: seed)
    }
}

public enum PrehashedKeys {
    /// `hash` combined with a dictionary's seed (which differs between dictionaries, so moving keys from one
    /// to another does not cluster them) by MurmurHash3's 64-bit finaliser.
    @inlinable
    public static func mix(_ hash: Int, seed: Int) -> Int {
        var bits = UInt64(bitPattern: Int64(hash ^ seed))
        bits ^= bits >> 33
        bits &*= 0xff51_afd7_ed55_8ccd
        bits ^= bits >> 33
        return Int(Int64(bitPattern: bits))
    }

    /// A second part of a key (a port, a scheme, an address family) added to its name's hash: multiplied by
    /// an odd number with its bits spread, so keys of one name with nearby parts land far apart.
    @inlinable
    public static func adding(_ part: Int, to hash: Int) -> Int {
        hash &+ part &* 0x4f1b_bcdc_bfa5_3e0b
    }
}
