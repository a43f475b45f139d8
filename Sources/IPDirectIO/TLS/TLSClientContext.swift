import CEvent
import Glibc
import IPDirectCore
import Synchronization

/// The client side of TLS for connections ipdirect originates itself: trust store, protocol floor,
/// ALPN, session resumption, key pins and the hosts exempted from verification. The Server builds one
/// and every worker shares it (a reload that changes `[tls]` replaces it whole); it owns the SSL_CTX.
/// Nothing in it changes after `init` but the session cache and the SSL_CTX's slot, each behind its lock.
///
/// The settings are checked and the trust store loaded in `init`, so a bad `[tls]` still stops the start;
/// the SSL_CTX is made by the first connection that needs it: OpenSSL's cipher, group and signature tables
/// held about 300 KiB at start that a proxy which never originates TLS has no use for.
///
/// ipdirect connects by IP, so every check of the server's identity must use the name the client
/// asked for: SNI and hostname verification are set from that name, never from the address.
final class TLSClientContext {
    /// Sessions kept for resumption, one per host:port; the oldest is dropped past this.
    static let sessionCacheCapacity = 1024
    /// What the proxy's own origin connections offer by ALPN: it forwards HTTP/1.1 only.
    static let defaultALPN = ["http/1.1"]
    /// RFC 7301 §3.1: a protocol name is 1 to 255 bytes.
    private static let alpnNameLengths = 1...255

    /// `@unchecked Sendable`: the SSL_CTX is made under the slot's lock, and OpenSSL locks its own use of it
    /// from several threads.
    private struct SSLContextPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let slot = Mutex<SSLContextPointer?>(nil)
    private let alpn: (names: [String], wire: [UInt8])
    private let sessions = TLSSessionCache(capacity: TLSClientContext.sessionCacheCapacity)
    /// The CAs verified against, possibly shared with other contexts.
    let trust: TrustStore
    /// Accepted pins per lower-case host name.
    private let pins: [String: Set<String>]
    private let insecureHosts: Set<String>

    /// `trust` holds the CAs to verify against; `pins` maps host names to base64 SHA-256 pins of acceptable public keys (see `PublicKeyPin`);
    /// `insecureHosts` are the only hosts whose certificates are not verified; `alpn` lists the
    /// protocols offered, most preferred first.
    init(trust: TrustStore, pins: [String: [String]] = [:], insecureHosts: Set<String> = [],
         alpn: [String] = TLSClientContext.defaultALPN) throws(StartupError) {
        var normalizedPins: [String: Set<String>] = [:]
        for (host, hostPins) in pins {
            if let malformed = hostPins.first(where: { !PublicKeyPin.isWellFormed($0) }) {
                throw StartupError("TLS pin \"\(malformed)\" for \(host) is not a base64 SHA-256 digest (\(PublicKeyPin.encodedLength) characters ending in '=')")
            }
            guard !hostPins.isEmpty else { throw StartupError("TLS pins for \(host) are empty: no server could ever match") }
            normalizedPins[HostName.normalized(host), default: []].formUnion(hostPins)
        }
        self.pins = normalizedPins
        self.trust = trust
        self.insecureHosts = Set(insecureHosts.map(HostName.normalized))
        self.alpn = (alpn, try TLSClientContext.alpnWireFormat(alpn))
    }

    deinit {
        slot.withLock { slot in
            if let context = slot { SSL_CTX_free(context.pointer) }
        }
    }

    /// The one configuration of the proxy's own upstream TLS: `[tls]`, verified against `trust`.
    convenience init(_ settings: TLSSettings, trust: TrustStore) throws(StartupError) {
        try self.init(trust: trust, pins: settings.pins, insecureHosts: settings.insecureHosts)
    }

    /// RFC 7301 §3.1: the protocol list as length-prefixed names.
    private static func alpnWireFormat(_ names: [String]) throws(StartupError) -> [UInt8] {
        guard !names.isEmpty else { throw StartupError("TLS ALPN list is empty") }
        var wire: [UInt8] = []
        for name in names {
            guard alpnNameLengths.contains(name.utf8.count) else {
                throw StartupError("TLS ALPN protocol \"\(name)\" must be 1 to 255 bytes")
            }
            wire.append(UInt8(name.utf8.count))
            wire.append(contentsOf: name.utf8)
        }
        return wire
    }

    /// The SSL_CTX, made on the first call; what stopped OpenSSL from making it otherwise.
    private func sslContext() -> Result<OpaquePointer, TLSFailure> {
        let made: Result<SSLContextPointer, TLSFailure> = slot.withLock { slot in
            if let context = slot { return .success(context) }
            OpenSSLErrorQueue.drainThread()
            guard let context = SSL_CTX_new(TLS_client_method()) else {
                let reason = OpenSSLErrorQueue.drainThread() ?? "out of memory"
                return .failure(TLSFailure(.handshakeFailed("cannot set up TLS (SSL_CTX_new failed: \(reason))")))
            }
            do {
                try TLSClientContext.configure(context, trust: trust, alpn: alpn)
            } catch {
                SSL_CTX_free(context)
                return .failure(TLSFailure(.handshakeFailed("cannot set up TLS: \(error)")))
            }
            // Released with the SSL_CTX, which connections still open keep alive past this object.
            SSL_CTX_set_ex_data(context, OpenSSLCallbacks.sessionCacheIndex, Unmanaged.passRetained(sessions).toOpaque())
            slot = SSLContextPointer(pointer: context)
            return .success(SSLContextPointer(pointer: context))
        }
        return made.map(\.pointer)
    }

    private static func configure(_ context: OpaquePointer, trust: TrustStore,
                                  alpn: (names: [String], wire: [UInt8])) throws(StartupError) {
        // Chain verification alone does not check that the certificate is for the host we meant:
        // makeSSL adds the name check per connection.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // set1: the context takes its own reference, so the store outlives whichever of them goes first.
        SSL_CTX_set1_cert_store(context, trust.store)
        // TLS 1.0 and 1.1 are deprecated (RFC 8996).
        guard ipd_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw StartupError("cannot require TLS 1.2: \(OpenSSLErrorQueue.drainThread() ?? "unknown error")")
        }
        // Many servers close without close_notify; HTTP framing, not TLS, detects a truncated body.
        // Compression enables CRIME-style attacks (RFC 7457 §2.6).
        _ = ipd_SSL_CTX_set_options(context, ipd_SSL_OP_IGNORE_UNEXPECTED_EOF() | ipd_SSL_OP_NO_COMPRESSION())
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike most of OpenSSL.
        guard SSL_CTX_set_alpn_protos(context, alpn.wire, UInt32(alpn.wire.count)) == 0 else {
            let offered = alpn.names.joined(separator: ", ")
            throw StartupError("cannot offer ALPN \(offered): \(OpenSSLErrorQueue.drainThread() ?? "unknown error")")
        }
        // OpenSSL's internal cache is keyed by session id, which a client cannot look up by server:
        // sessions go to TLSSessionCache, keyed by host:port, through the new-session callback.
        _ = ipd_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL))
        SSL_CTX_sess_set_new_cb(context, OpenSSLCallbacks.newSession)
    }

    static func cacheKey(host: String, port: UInt16) -> String {
        HostName.withPort(HostName.normalized(host), port)
    }

    /// A new SSL* for a connection to `host` (the name the client asked for) on `port`, owned by the
    /// caller (a bufferevent created with BEV_OPT_CLOSE_ON_FREE frees it), or why none could be set up
    /// for that name. A client can reach this with any host it likes, so nothing here may stop the daemon.
    func makeSSL(host: String, port: UInt16) -> Result<OpaquePointer, TLSFailure> {
        let name = HostName.normalized(host)
        let context: OpaquePointer
        switch sslContext() {
        case .success(let made): context = made
        case .failure(let failure): return .failure(failure)
        }
        guard let ssl = SSL_new(context) else {
            return .failure(TLSFailure(.handshakeFailed("cannot set up TLS (SSL_new failed: out of memory)")))
        }
        if IPAddress(name) == nil {
            _ = ipd_SSL_set_tlsext_host_name(ssl, name)
            // RFC 9525 §6.3: a wildcard may only be the complete left-most label.
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            // Continuing without the name check would accept any certificate: refuse instead.
            guard SSL_set1_host(ssl, name) == 1 else {
                SSL_free(ssl)
                OpenSSLErrorQueue.drainThread()
                return .failure(TLSFailure(.handshakeFailed("cannot set up TLS: OpenSSL refused \(name) as the name to verify")))
            }
        } else {
            // RFC 6066 §3: SNI carries host names only, so an IP literal is sent without SNI and
            // checked against the certificate's iPAddress names.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 else {
                SSL_free(ssl)
                OpenSSLErrorQueue.drainThread()
                return .failure(TLSFailure(.handshakeFailed("cannot set up TLS: OpenSSL refused \(name) as the IP address to verify")))
            }
        }
        if insecureHosts.contains(name) {
            SSL_set_verify(ssl, SSL_VERIFY_NONE, nil)
            Logger.warning("event=tls_verification_disabled host=\(name) port=\(port) reason=tls.insecure_hosts details=\"the server's certificate is NOT verified: anyone on the path can impersonate \(name)\"")
        }
        let key = TLSClientContext.cacheKey(host: name, port: port)
        _ = SSL_set_ex_data(ssl, OpenSSLCallbacks.cacheKeyIndex, strdup(key))
        sessions.offer(to: ssl, key: key)
        return .success(ssl)
    }

    /// Checks the key pins of `host` against the connection's verified chain once the handshake has
    /// succeeded; nil when the host has no pins or a certificate of the chain carries a pinned key.
    func pinFailure(_ ssl: OpaquePointer, host: String) -> TLSFailure? {
        guard let accepted = pins[HostName.normalized(host)] else { return nil }
        // A resumed session carries no chain of its own; it was cached only from a connection whose
        // chain passed this check (a failing connection's session is forgotten, see `forgetSession`).
        if TLSClientContext.handshakeWasResumed(ssl) { return nil }
        let verified = SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER != 0
        // Without verification (tls.insecure_hosts) there is no verified chain: the sent one is all there is.
        let chain = (verified ? SSL_get0_verified_chain(ssl) : nil) ?? SSL_get_peer_cert_chain(ssl)
        var serverPins: [String] = []
        if let chain {
            for index in 0..<ipd_sk_X509_num(chain) {
                guard let certificate = ipd_sk_X509_value(chain, index),
                      let pin = PublicKeyPin.of(certificate: certificate) else { continue }
                if accepted.contains(pin) { return nil }
                serverPins.append(pin)
            }
        }
        return TLSFailure(.pinMismatch(serverPins: serverPins))
    }

    /// Drops the cached session of a server whose handshake failed or whose pins did not match.
    func forgetSession(host: String, port: UInt16) {
        sessions.remove(TLSClientContext.cacheKey(host: host, port: port))
    }

    /// Whether the handshake on `ssl` resumed a cached session instead of a full handshake.
    static func handshakeWasResumed(_ ssl: OpaquePointer) -> Bool {
        SSL_session_reused(ssl) == 1
    }

    /// Number of sessions held for resumption.
    var cachedSessionCount: Int { sessions.count }

    /// Whether the SSL_CTX has been made: not before the first connection that needs it.
    var hasSSLContext: Bool { slot.withLock { $0 != nil } }

    /// The X509_STORE verification uses, to tell whether two contexts share one; makes the SSL_CTX.
    var certificateStore: OpaquePointer? {
        guard case .success(let context) = sslContext() else { return nil }
        return SSL_CTX_get_cert_store(context)
    }
}
