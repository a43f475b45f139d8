import IPDirectCore

/// Why a TLS connection to an upstream could not be established, in words a user can act on.
struct TLSFailure: Error, CustomStringConvertible {
    enum Reason: CustomStringConvertible {
        /// The certificate's notAfter lies in the past (X509_V_ERR_CERT_HAS_EXPIRED).
        case certificateExpired
        /// The certificate's notBefore lies in the future (X509_V_ERR_CERT_NOT_YET_VALID).
        case certificateNotYetValid
        /// The certificate does not name the host (RFC 6125 §6); `certificateNames` are the DNS and IP
        /// names of its subjectAltName (or its subject CN when it has none).
        case hostnameMismatch(expected: String, certificateNames: [String])
        /// The server sent a self-signed certificate (`leaf`) or a chain ending in an untrusted self-signed root.
        case selfSigned(leaf: Bool)
        /// No trusted CA issued the chain (X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY and relatives).
        case unknownAuthority
        /// Any other verification error, as OpenSSL words it (revoked, bad signature, path too long...).
        case certificateRejected(String)
        /// No certificate of the verified chain carries a pinned public key; `serverPins` are the pins
        /// the chain does carry, leaf first, so a renewed key can be recognised.
        case pinMismatch(serverPins: [String])
        /// The handshake failed for a protocol reason: OpenSSL's reason (e.g. "wrong version number",
        /// "tlsv1 alert protocol version") or what happened to the connection.
        case handshakeFailed(String)
        /// The TCP connection stood but the handshake did not finish within the connect timeout.
        case handshakeTimedOut(millis: Int)

        var description: String {
            switch self {
            case .certificateExpired:
                return "certificate has expired"
            case .certificateNotYetValid:
                return "certificate is not yet valid"
            case .hostnameMismatch(let expected, let names):
                let carried = names.isEmpty ? "it names no DNS or IP identity" : "it is for \(Self.shown(names))"
                return "hostname mismatch: certificate does not match \(expected) (\(carried)); the server may not have received the expected SNI name"
            case .selfSigned(let leaf):
                return leaf ? "certificate is self-signed and not trusted"
                            : "certificate chain ends in an untrusted self-signed root"
            case .unknownAuthority:
                return "certificate issuer is unknown: unable to get local issuer certificate (not issued by a trusted CA)"
            case .certificateRejected(let reason):
                return "certificate rejected: \(reason)"
            case .pinMismatch(let serverPins):
                let carried = serverPins.isEmpty ? "" : " (the server's keys: \(serverPins.joined(separator: ", ")))"
                return "pin mismatch: no certificate in the chain matches the pinned public keys\(carried)"
            case .handshakeFailed(let reason):
                return "handshake failed: \(reason)"
            case .handshakeTimedOut(let millis):
                return "no TLS handshake within \(millis) ms"
            }
        }

        /// Enough of the names a server's certificate carries to recognise it; a certificate may carry thousands.
        static let namesShown = 8

        /// The certificate's names for a message, each as the server wrote it but bounded, the rest counted.
        private static func shown(_ names: [String]) -> String {
            let listed = names.prefix(namesShown).map { LogQuote.token($0) }.joined(separator: ", ")
            return names.count > namesShown ? "\(listed) and \(names.count - namesShown) more" : listed
        }

        /// Problems with the server's certificate or key, as opposed to the protocol exchange.
        var concernsCertificate: Bool {
            switch self {
            case .certificateExpired, .certificateNotYetValid, .hostnameMismatch, .selfSigned, .unknownAuthority,
                 .certificateRejected, .pinMismatch:
                return true
            case .handshakeFailed, .handshakeTimedOut:
                return false
            }
        }
    }

    var reason: Reason

    init(_ reason: Reason) {
        self.reason = reason
    }

    var description: String { reason.description }

    /// The answer to the client: 502 tls_certificate_error or tls_protocol_error (RFC 9209 §2.3),
    /// or 504 connection_timeout for a handshake that never finished (RFC 9209 §2.3): the
    /// connection to the next hop could not be completed in time.
    func proxyError(host: String, address: SocketAddress) -> ProxyError {
        let details = "TLS to \(host) (\(address)) failed: \(reason)"
        switch reason {
        case .handshakeTimedOut:
            return ProxyError(status: 504, kind: .connectionTimeout, details: details)
        default:
            return ProxyError(status: 502, kind: reason.concernsCertificate ? .tlsCertificateError : .tlsProtocolError,
                              details: details)
        }
    }
}
