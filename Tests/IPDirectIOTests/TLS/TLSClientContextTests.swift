import CEvent
import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO

@Suite struct TLSClientContextTests {
    /// A session OpenSSL counts as resumable (it has an id), as the new-session callback would hand it over.
    static func resumableSession() -> OpaquePointer {
        let session = SSL_SESSION_new()!
        let id = [UInt8](repeating: 7, count: 32)
        _ = SSL_SESSION_set1_id(session, id, UInt32(id.count))
        return session
    }

    /// What OpenSSL does when a server's ticket arrives on `ssl`; true when the cache took the session.
    static func sessionArrives(_ session: OpaquePointer, on ssl: OpaquePointer) -> Bool {
        OpenSSLCallbacks.newSession(ssl, session) == 1
    }

    @Test func contextsBuiltOnOneTrustStoreVerifyThroughOneCertificateStore() throws {
        let trust = try TrustStore(caFile: nil, caPath: nil)
        let proxy = try TLSClientContext(trust: trust)
        let httpdns = try HTTPDNSTransport.makeTLSContext(trust: trust)
        #expect(proxy.certificateStore == trust.store)
        #expect(httpdns.certificateStore == trust.store)
    }

    @Test func makesNoSSLContextUntilAConnectionNeedsOne() throws {
        let context = try TLSClientContext(trust: TrustStore(caFile: nil, caPath: nil))
        #expect(!context.hasSSLContext)
        let ssl = try context.makeSSL(host: "a.test", port: 443).get()
        defer { SSL_free(ssl) }
        #expect(context.hasSSLContext)
        #expect(SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER != 0, "the context made on demand verifies the server")
    }

    @Test func aSessionLearnedOnOneThreadIsOfferedToAConnectionMadeOnAnother() throws {
        let context = try TLSClientContext(trust: TrustStore(caFile: nil, caPath: nil))
        let session = TLSClientContextTests.resumableSession()
        var kept = false
        let learner = LoopThread.start(named: "learner") {
            guard case .success(let ssl) = context.makeSSL(host: "a.test", port: 443) else { return }
            kept = TLSClientContextTests.sessionArrives(session, on: ssl)
            SSL_free(ssl)
        }
        pthread_join(learner, nil)
        #expect(kept)
        let ssl = try context.makeSSL(host: "a.test", port: 443).get()
        defer { SSL_free(ssl) }
        #expect(SSL_get_session(ssl) == session)
    }

    @Test func aSessionArrivingAfterItsContextWasReplacedStillReachesALiveCache() throws {
        var context: TLSClientContext? = try TLSClientContext(trust: TrustStore(caFile: nil, caPath: nil))
        let ssl = try #require(context).makeSSL(host: "a.test", port: 443).get()
        defer { SSL_free(ssl) }
        // A reload let the context go; the connection's SSL keeps its SSL_CTX, and with it the cache.
        context = nil
        #expect(TLSClientContextTests.sessionArrives(TLSClientContextTests.resumableSession(), on: ssl))
    }
}
