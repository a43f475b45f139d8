import CEvent
import Glibc
import Testing
@testable import IPDirectIO

@Suite struct TLSSessionCacheTests {
    static let threads = 4
    static let sessionsPerThread = 500

    /// Stores `sessionsPerThread` sessions under distinct keys from each of `threads` threads at once.
    static func storeConcurrently(into cache: TLSSessionCache) {
        let started = (0..<threads).map { thread in
            LoopThread.start(named: "session-user") {
                for index in 0..<sessionsPerThread {
                    cache.store(SSL_SESSION_new()!, for: "host-\(thread)-\(index).test:443")
                }
            }
        }
        for thread in started { pthread_join(thread, nil) }
    }

    @Test func storesFromSeveralThreadsAtOnceKeepEverySession() {
        let cache = TLSSessionCache(capacity: TLSSessionCacheTests.threads * TLSSessionCacheTests.sessionsPerThread)
        TLSSessionCacheTests.storeConcurrently(into: cache)
        #expect(cache.count == TLSSessionCacheTests.threads * TLSSessionCacheTests.sessionsPerThread)
    }

    @Test func storesFromSeveralThreadsAtOnceNeverHoldMoreThanTheCapacity() {
        let cache = TLSSessionCache(capacity: 100)
        TLSSessionCacheTests.storeConcurrently(into: cache)
        #expect(cache.count == 100)
    }
}
