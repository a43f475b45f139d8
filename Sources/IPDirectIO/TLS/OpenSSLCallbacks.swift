import CEvent
import Glibc

/// Every OpenSSL callback in one place. None captures anything: each finds its owner through the
/// SSL or SSL_CTX it is handed.
enum OpenSSLCallbacks {
    /// The SSL ex_data slot holding a connection's session cache key ("host:port") as a malloc'd C
    /// string. OpenSSL calls the closure below when the SSL is freed, so the key lives exactly as long as
    /// the connection, whoever frees it (the bufferevent, a failed connect, the pool).
    static let cacheKeyIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil) { _, key, _, _, _, _ in
        free(key)
    }

    /// The SSL_CTX ex_data slot holding a retained `TLSSessionCache`, released by the closure below when
    /// the SSL_CTX is freed. Connections keep their SSL_CTX alive after a reload has let its
    /// `TLSClientContext` go, and a ticket arriving on one of them, on any worker's thread, must still find
    /// a live cache.
    static let sessionCacheIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_SSL_CTX, 0, nil, nil, nil) { _, cache, _, _, _, _ in
        if let cache { Unmanaged<TLSSessionCache>.fromOpaque(cache).release() }
    }

    /// A new resumable session (a TLS 1.2 session at the end of the handshake, or a TLS 1.3 ticket that
    /// arrives after it, RFC 8446 §4.6.1). Returning 1 hands OpenSSL's reference to the cache.
    static let newSession: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32 = { ssl, session in
        guard let ssl, let session, let context = SSL_get_SSL_CTX(ssl),
              let cache = SSL_CTX_get_ex_data(context, sessionCacheIndex) else { return 0 }
        return Unmanaged<TLSSessionCache>.fromOpaque(cache).takeUnretainedValue().keep(session, arrivedOn: ssl) ? 1 : 0
    }
}
