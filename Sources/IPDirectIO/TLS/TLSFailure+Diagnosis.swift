import CEvent
import Glibc
import IPDirectCore

extension TLSFailure {
    /// Names listed from a certificate in a hostname mismatch; the rest are counted.
    private static let listedNameLimit = 8

    /// Explains why the handshake on the TLS socket `socket` failed. The verify result is read
    /// first: for a rejected certificate the error queue only says "certificate verify failed", while
    /// SSL_get_verify_result says which check failed (62 is a hostname mismatch).
    static func diagnose(handshakeOf socket: borrowing BufferedSocket, events: Int16, errnoCode: Int32, host: String) -> TLSFailure {
        let queued = socket.takeOpenSSLError()
        if let ssl = socket.ssl, SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER != 0 {
            let result = SSL_get_verify_result(ssl)
            if result != X509_V_OK {
                return TLSFailure(certificateReason(Int32(truncatingIfNeeded: result), ssl: ssl, host: host))
            }
        }
        if let queued { return TLSFailure(.handshakeFailed(queued)) }
        // No OpenSSL error: the socket failed or reached EOF. errno still holds the cause of a failed
        // read or write, unless it is a leftover "try again" from an earlier non-blocking call.
        let staleErrno = [0, EAGAIN, EWOULDBLOCK, EINPROGRESS].contains(errnoCode)
        if events & Int16(BEV_EVENT_EOF) != 0 || staleErrno {
            return TLSFailure(.handshakeFailed("the server closed the connection during the handshake"))
        }
        return TLSFailure(.handshakeFailed(String(cString: strerror(errnoCode)).lowercased()))
    }

    private static func certificateReason(_ result: Int32, ssl: OpaquePointer, host: String) -> Reason {
        switch result {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            let names = peerLeaf(ssl).map(identityNames(of:)) ?? []
            return .hostnameMismatch(expected: host, certificateNames: names)
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return .selfSigned(leaf: true)
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            return .selfSigned(leaf: false)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .unknownAuthority
        default:
            return .certificateRejected(String(cString: X509_verify_cert_error_string(Int(result))))
        }
    }

    /// The server's own certificate. After a failed verification OpenSSL has not recorded it as the
    /// session's peer certificate yet, but the chain the server sent (leaf first) is kept.
    private static func peerLeaf(_ ssl: OpaquePointer) -> OpaquePointer? {
        for chain in [SSL_get_peer_cert_chain(ssl), SSL_get0_verified_chain(ssl)] {
            if let chain, ipd_sk_X509_num(chain) > 0, let leaf = ipd_sk_X509_value(chain, 0) { return leaf }
        }
        return nil
    }

    /// The DNS and IP names of the certificate's subjectAltName, which is what hostname verification
    /// compares (RFC 6125 §6.4.4: the subject CN is only consulted when there is no subjectAltName),
    /// else its subject CN.
    static func identityNames(of certificate: OpaquePointer) -> [String] {
        var names: [String] = []
        if let extensionData = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) {
            let list = OpaquePointer(extensionData)
            defer { GENERAL_NAMES_free(list) }
            for index in 0..<ipd_sk_GENERAL_NAME_num(list) {
                guard let name = ipd_sk_GENERAL_NAME_value(list, index) else { continue }
                switch name.pointee.type {
                case GEN_DNS:
                    if let text = name.pointee.d.dNSName { names.append(string(text)) }
                case GEN_IPADD:
                    if let raw = name.pointee.d.iPAddress,
                       let address = IPAddress(bytes: bytes(raw)) { names.append(address.description) }
                default:
                    continue
                }
            }
        }
        if names.isEmpty, let commonName = commonName(of: certificate) {
            names.append("CN=\(commonName)")
        }
        guard names.count > listedNameLimit else { return names }
        return names.prefix(listedNameLimit) + ["and \(names.count - listedNameLimit) more"]
    }

    private static func commonName(of certificate: OpaquePointer) -> String? {
        guard let subject = X509_get_subject_name(certificate) else { return nil }
        let index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(subject, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return string(data)
    }

    private static func bytes(_ text: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(text))
        guard length > 0, let data = ASN1_STRING_get0_data(text) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    private static func string(_ text: UnsafePointer<ASN1_STRING>) -> String {
        String(decoding: bytes(text), as: UTF8.self)
    }
}
