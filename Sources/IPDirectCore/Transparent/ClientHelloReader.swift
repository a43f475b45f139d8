/// The name a TLS client asks for, read from the first bytes it sends without decrypting anything: the
/// `host_name` of the ClientHello's server_name extension (RFC 6066 §3), found by record and handshake length
/// across any number of reads (RFC 8446 §5.1 lets a handshake message span records; a post-quantum ClientHello
/// of about 2 KB spans two TCP segments).
public enum ClientHelloReader {
    /// A ClientHello is refused past this many bytes of records (a handshake message may be longer in
    /// principle; no real ClientHello is).
    public static let maximumBytes = 64 * 1024

    /// What the bytes received so far say.
    public enum Reading: Equatable, Sendable, CustomStringConvertible {
        /// A TLS handshake record has begun and the ClientHello is not complete yet.
        case incomplete
        /// A complete ClientHello naming this host, lower case without a trailing dot.
        case serverName(String)
        /// A complete ClientHello without a usable name: no server_name extension, or one naming an IP
        /// address (which RFC 6066 §3 forbids) or something that is not a host name.
        case noServerName
        /// The bytes are not a TLS ClientHello, or not a well-formed one; the reason is one line for the log.
        case notClientHello(String)

        public var description: String {
            switch self {
            case .incomplete: return "incomplete"
            case .serverName(let name): return "server name \(name)"
            case .noServerName: return "no server name"
            case .notClientHello(let reason): return "not a ClientHello: \(reason)"
            }
        }
    }

    static let handshakeRecord: UInt8 = 22
    static let clientHello: UInt8 = 1
    static let serverNameExtension: UInt16 = 0
    static let hostNameType: UInt8 = 0
    /// RFC 8446 §5.1: a record's fragment is at most 2^14 bytes (plus expansion for protected records,
    /// which a ClientHello never is).
    static let maximumFragment = 1 << 14

    /// Whether `first` may begin a TLS record carrying a handshake.
    public static func beginsHandshake(_ first: UInt8) -> Bool { first == handshakeRecord }

    public static func read(_ bytes: UnsafeRawBufferPointer) -> Reading {
        if let body = bodyInFirstRecord(bytes) {
            return serverName(inClientHello: UnsafeRawBufferPointer(rebasing: bytes[body]))
        }
        switch handshakeMessage(bytes) {
        case .incomplete: return .incomplete
        case .invalid(let reason): return .notClientHello(reason)
        case .complete(let body): return body.withUnsafeBytes { serverName(inClientHello: $0) }
        }
    }

    /// Where the ClientHello's body lies when the first record holds all of it, as nearly every client sends
    /// it: read in place, without joining fragments. Nil otherwise, for `handshakeMessage` to decide.
    private static func bodyInFirstRecord(_ bytes: UnsafeRawBufferPointer) -> Range<Int>? {
        guard bytes.count >= 9, bytes[0] == handshakeRecord, bytes[1] == 3, bytes[5] == clientHello else { return nil }
        let length = Int(bytes[3]) << 8 | Int(bytes[4])
        let bodyLength = Int(bytes[6]) << 16 | Int(bytes[7]) << 8 | Int(bytes[8])
        guard length <= maximumFragment, 4 + bodyLength <= length, 9 + bodyLength <= bytes.count else { return nil }
        return 9..<(9 + bodyLength)
    }

    private enum Message {
        case incomplete
        case invalid(String)
        /// The ClientHello's body, after its handshake header, joined from its records' fragments.
        case complete([UInt8])
    }

    /// The handshake message the records at the start of `bytes` carry, joined from their fragments.
    private static func handshakeMessage(_ bytes: UnsafeRawBufferPointer) -> Message {
        var message: [UInt8] = []
        var offset = 0
        while true {
            guard offset < bytes.count else { return .incomplete }
            guard bytes[offset] == handshakeRecord else {
                return .invalid(offset == 0 ? "first byte \(bytes[0])" : "record type \(bytes[offset]) inside a ClientHello")
            }
            // legacy_record_version: 3.x (0x0301 in most ClientHellos, 0x0300 in some).
            if offset + 1 < bytes.count, bytes[offset + 1] != 3 { return .invalid("record version \(bytes[offset + 1]).x") }
            guard offset + 5 <= bytes.count else { return .incomplete }
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            guard length > 0, length <= maximumFragment else { return .invalid("record of \(length) bytes") }
            let fragment = (offset + 5)..<(offset + 5 + length)
            guard fragment.upperBound <= maximumBytes else { return .invalid("longer than \(maximumBytes) bytes") }
            let available = fragment.clamped(to: fragment.lowerBound..<max(fragment.lowerBound, bytes.count))
            message.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[available]))
            if message.count >= 4 {
                guard message[0] == clientHello else { return .invalid("handshake type \(message[0])") }
                let bodyLength = Int(message[1]) << 16 | Int(message[2]) << 8 | Int(message[3])
                guard 4 + bodyLength <= maximumBytes else { return .invalid("a ClientHello of \(bodyLength) bytes") }
                if message.count >= 4 + bodyLength {
                    return .complete(Array(message[4..<(4 + bodyLength)]))
                }
            }
            guard available.count == length else { return .incomplete }
            offset = fragment.upperBound
        }
    }

    /// RFC 8446 §4.1.2: legacy_version, random, legacy_session_id, cipher_suites, legacy_compression_methods,
    /// then extensions (absent in a TLS 1.0 ClientHello without any).
    private static func serverName(inClientHello body: UnsafeRawBufferPointer) -> Reading {
        var reader = ByteReader(body)
        guard reader.skip(2 + 32) else { return .notClientHello("ClientHello shorter than its random") }
        guard let sessionID = reader.vector(lengthBytes: 1), sessionID.count <= 32 else {
            return .notClientHello("bad legacy_session_id")
        }
        guard let suites = reader.vector(lengthBytes: 2), suites.count >= 2, suites.count % 2 == 0 else {
            return .notClientHello("bad cipher_suites")
        }
        guard let compression = reader.vector(lengthBytes: 1), !compression.isEmpty else {
            return .notClientHello("bad legacy_compression_methods")
        }
        if reader.isAtEnd { return .noServerName }
        guard let extensions = reader.vector(lengthBytes: 2), reader.isAtEnd else {
            return .notClientHello("bad extensions")
        }
        var list = ByteReader(extensions)
        var found: Reading = .noServerName
        var seenServerName = false
        while !list.isAtEnd {
            guard let type = list.uint16(), let data = list.vector(lengthBytes: 2) else {
                return .notClientHello("bad extension")
            }
            guard type == serverNameExtension else { continue }
            // RFC 8446 §4.2: no extension type appears twice.
            guard !seenServerName else { return .notClientHello("two server_name extensions") }
            seenServerName = true
            guard let reading = hostName(inServerNameExtension: data) else { return .notClientHello("bad server_name") }
            found = reading
        }
        return found
    }

    /// RFC 6066 §3: a ServerNameList of (name_type, opaque name) entries; the first host_name counts.
    private static func hostName(inServerNameExtension data: UnsafeRawBufferPointer) -> Reading? {
        var reader = ByteReader(data)
        guard let list = reader.vector(lengthBytes: 2), reader.isAtEnd, !list.isEmpty else { return nil }
        var entries = ByteReader(list)
        while !entries.isAtEnd {
            guard let type = entries.uint8(), let name = entries.vector(lengthBytes: 2), !name.isEmpty else { return nil }
            guard type == hostNameType else { continue }
            switch SOCKSAddress.hostName(name, 0..<name.count) {
            case .domain(let host)?: return .serverName(HostName.normalized(host))
            case .ip?, nil: return .noServerName
            }
        }
        return .noServerName
    }

    /// Reads big-endian integers and length-prefixed vectors (RFC 8446 §3.4) in place; each vector is a view
    /// of the same bytes, indexed from zero.
    private struct ByteReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        var isAtEnd: Bool { offset == bytes.count }

        mutating func skip(_ count: Int) -> Bool {
            guard bytes.count - offset >= count else { return false }
            offset += count
            return true
        }

        mutating func uint8() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint16() -> UInt16? {
            guard bytes.count - offset >= 2 else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        mutating func vector(lengthBytes: Int) -> UnsafeRawBufferPointer? {
            guard bytes.count - offset >= lengthBytes else { return nil }
            var length = 0
            for index in offset..<(offset + lengthBytes) { length = length << 8 | Int(bytes[index]) }
            guard bytes.count - offset - lengthBytes >= length else { return nil }
            let start = offset + lengthBytes
            offset = start + length
            return UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        }
    }
}
