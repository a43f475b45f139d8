import Testing
@testable import IPDirectCore

/// Keys built on a name hashed once behave in dictionaries and sets as keys hashed whole would: equal keys
/// find each other, different keys stay apart, and many keys spread over a table's buckets.
@Suite struct HashedHostNameTests {
    @Test func equalNamesAreOneKeyWhateverStringTheyCameFrom() {
        let built = HashedHostName(String("a.tes") + "t")
        #expect(built == HashedHostName("a.test"))
        #expect(built.hashValue == HashedHostName("a.test").hashValue)
        let table: [HashedHostName: Int] = [HashedHostName("a.test"): 1]
        #expect(table[built] == 1)
        #expect(table[HashedHostName("b.test")] == nil)
    }

    @Test func equalKeysHaveEqualRawHashesForEverySeed() {
        for seed in [0, 1, -1, 0x1234_5678, Int.max] {
            #expect(HashedHostName("a.test")._rawHashValue(seed: seed) == HashedHostName("a.test")._rawHashValue(seed: seed))
            #expect(UpstreamHostKey(host: "a.test", port: 443)._rawHashValue(seed: seed)
                    == UpstreamHostKey(name: HashedHostName("a.test"), port: 443)._rawHashValue(seed: seed))
        }
    }

    /// What a dictionary calls: the requirement of `Hashable`, reached generically.
    func rawHash<Key: Hashable>(_ key: Key, seed: Int) -> Int { key._rawHashValue(seed: seed) }

    @Test func dictionariesGetTheMixedPrehashNotAHashersResult() {
        let keys: [any PrehashedKey] = [HashedHostName("a.test"), UpstreamHostKey(host: "a.test", port: 443),
                                        UpstreamPoolKey(scheme: .https, host: "a.test", port: 443),
                                        ResolverCacheKey(name: "a.test", family: .v6)]
        for key in keys {
            #expect(rawHash(key, seed: 5) == PrehashedKeys.mix(key.prehash, seed: 5))
        }
    }

    @Test func theSeedChangesTheRawHash() {
        let name = HashedHostName("a.test")
        #expect(name._rawHashValue(seed: 1) != name._rawHashValue(seed: 2))
    }

    @Test func portSchemeAndFamilyEachMakeAnotherKey() {
        let name = HashedHostName("a.test")
        let hosts: Set = [UpstreamHostKey(name: name, port: 80), UpstreamHostKey(name: name, port: 81),
                          UpstreamHostKey(name: name, port: 443)]
        #expect(hosts.count == 3)
        let pools: Set = [UpstreamPoolKey(scheme: .http, host: "a.test", port: 443),
                          UpstreamPoolKey(scheme: .https, host: "a.test", port: 443)]
        #expect(pools.count == 2)
        #expect(UpstreamPoolKey(scheme: .https, host: "a.test", port: 443).prehash
                != UpstreamPoolKey(scheme: .http, host: "a.test", port: 444).prehash)
        #expect(pools.contains(UpstreamPoolKey(scheme: .https, origin: UpstreamHostKey(name: name, port: 443))))
        let cache: Set = [ResolverCacheKey(hashedName: name, family: .v4), ResolverCacheKey(hashedName: name, family: .v6)]
        #expect(cache.count == 2)
        #expect(cache.contains(ResolverCacheKey(name: "A.Test.", family: .v6)))
    }

    @Test func tenThousandKeysAreAllFoundAndSpreadOverTheBuckets() {
        var table: [UpstreamHostKey: Int] = [:]
        for index in 0..<10_000 { table[UpstreamHostKey(host: "host\(index % 100).test", port: UInt16(index / 100))] = index }
        #expect(table.count == 10_000)
        for index in stride(from: 0, to: 10_000, by: 97) {
            #expect(table[UpstreamHostKey(host: "host\(index % 100).test", port: UInt16(index / 100))] == index)
        }
        // Bucket indices are the raw hash's low bits: sequential ports of one name must not share them.
        let buckets = Set((0..<1_024).map { UpstreamHostKey(host: "a.test", port: UInt16($0))._rawHashValue(seed: 7) & 1_023 })
        #expect(buckets.count > 600)
    }
}
