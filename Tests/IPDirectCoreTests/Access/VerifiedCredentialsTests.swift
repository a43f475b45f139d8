import Testing
@testable import IPDirectCore

/// The cache of logins crypt(3) accepted, with time passed in as milliseconds.
@Suite struct VerifiedCredentialsTests {
    let alice = VerifiedCredentials.Digest(bytes: Array(repeating: 0xA1, count: 32))
    let bob = VerifiedCredentials.Digest(bytes: Array(repeating: 0xB0, count: 32))

    /// `lookUp` mutates (it drops expired entries), which `#expect` cannot call in place.
    func hit(_ cache: inout VerifiedCredentials, _ digest: VerifiedCredentials.Digest, now: Int64) -> Bool {
        cache.lookUp(digest, now: now)
    }

    @Test func aVerifiedLoginIsKnownUntilItsLifetimeEnds() {
        var cache = VerifiedCredentials()
        #expect(!hit(&cache, alice, now: 0))
        cache.insert(alice, now: 1_000)
        #expect(hit(&cache, alice, now: 1_000 + VerifiedCredentials.lifetimeMillis - 1))
        #expect(!hit(&cache, bob, now: 1_001))
        #expect(!hit(&cache, alice, now: 1_000 + VerifiedCredentials.lifetimeMillis))
        #expect(cache.count == 0)
    }

    @Test func anotherDigestOfTheSameLengthIsNotAHit() {
        var cache = VerifiedCredentials()
        cache.insert(alice, now: 0)
        var almost = Array(repeating: UInt8(0xA1), count: 32)
        almost[31] = 0xA0
        #expect(!hit(&cache, VerifiedCredentials.Digest(bytes: almost), now: 1))
    }

    @Test func keepsAtMostItsCapacityForgettingTheLeastRecentlyUsed() {
        var cache = VerifiedCredentials(capacity: 2)
        let carol = VerifiedCredentials.Digest(bytes: Array(repeating: 0xC0, count: 32))
        cache.insert(alice, now: 0)
        cache.insert(bob, now: 0)
        #expect(hit(&cache, alice, now: 1))
        cache.insert(carol, now: 2)
        #expect(cache.count == 2)
        #expect(hit(&cache, alice, now: 3))
        #expect(!hit(&cache, bob, now: 3))
    }

    @Test func forgetsEverythingWhenTheFileChanges() {
        var cache = VerifiedCredentials()
        cache.insert(alice, now: 0)
        cache.insert(bob, now: 0)
        cache.removeAll()
        #expect(!hit(&cache, alice, now: 1))
        #expect(cache.count == 0)
    }
}
