import CEvent
import IPDirectCore

/// One RFC 8484 DNS query message for a name's A or AAAA records, built by c-ares.
///
/// The ID is 0 (RFC 8484 §4.1: DoH needs no ID to match answers, and a fixed one keeps GET
/// requests cache-friendly) and recursion is desired, because the DoH server resolves for us.
/// No EDNS(0) OPT record is added (over HTTP there is no UDP size to advertise) unless a client subnet
/// is to be sent or the query is to be padded: then an OPT record holding the RFC 7871 ECS option,
/// the RFC 7830 Padding option or both ends the message.
public struct DNSQuery: Sendable, Equatable, CustomStringConvertible {
    /// The name asked, lower case and without a trailing dot; what the answer's question must echo.
    public let name: String
    public let type: DNSRecordType
    /// The wire message: the body of a POST, or what `base64URL` encodes for a GET.
    public let bytes: [UInt8]

    /// RFC 1035 §2.3.4: at most 253 characters in text form (255 octets on the wire).
    public static let maximumNameLength = 253
    /// RFC 8484 §4.1: "the DNS ID field SHOULD be 0" so identical queries have identical URLs.
    private static let messageID: UInt16 = 0
    /// The RD bit (RFC 1035 §4.1.1): the DoH server is a recursive resolver.
    private static let recursionDesired: Int32 = 1
    /// 0 tells c-ares not to append an EDNS(0) OPT record.
    private static let noEDNSPayloadSize: Int32 = 0

    /// `paddedTo` pads the message to a multiple of that many octets (RFC 8467 §4.1's 128 for queries),
    /// for transports where the length of a message shows through the encryption, such as DNS over TLS.
    public init(name: String, type: DNSRecordType, clientSubnet: ClientSubnet? = nil,
                paddedTo block: Int? = nil) throws(DNSQueryError) {
        let normalised = HostName.normalized(name)
        guard !normalised.isEmpty else { throw .invalidName(name, "the name is empty") }
        guard normalised.utf8.count <= Self.maximumNameLength else {
            throw .invalidName(name, "longer than \(Self.maximumNameLength) characters")
        }
        // c-ares reads backslash escapes (`\.` and `\DDD`), so such a name would go on the wire as
        // different labels from the ones asked; host names never contain them (RFC 952, RFC 1123 §2.1).
        guard !normalised.utf8.contains(UInt8(ascii: "\\")) else {
            throw .invalidName(name, "backslash escapes are not host names")
        }
        var buffer: UnsafeMutablePointer<UInt8>?
        var length: Int32 = 0
        let status = ares_create_query(
            normalised, Int32(DNSRecordType.internetClass), Int32(type.rawValue), Self.messageID,
            Self.recursionDesired, &buffer, &length, Self.noEDNSPayloadSize)
        defer { if let buffer { ares_free_string(buffer) } }
        guard status == ARES_SUCCESS, let buffer, length > 0 else {
            let reason = String(cString: ares_strerror(status))
            throw .invalidName(name, status == ARES_EBADNAME ? "a label is empty or longer than 63 octets" : reason)
        }
        self.name = normalised
        self.type = type
        let built = Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
        guard clientSubnet != nil || block != nil else {
            self.bytes = built
            return
        }
        // c-ares writes header, question and nothing else (no OPT, as asked above), so the record
        // goes at the end; a c-ares message is never too short or full of additional records.
        let options = clientSubnet.map { [$0.ednsOption] } ?? []
        let appended = if let block { EDNSRecord.appending(options: options, to: built, paddedTo: block) }
                       else { EDNSRecord.appending(options: options, to: built) }
        guard let withOPT = appended else {
            throw .invalidName(name, "the query could not take an EDNS record")
        }
        self.bytes = withOPT
    }

    /// The message in base64url without padding, as the `dns` parameter of a GET (RFC 8484 §4.1, §6).
    public var base64URL: String {
        Base64URL.encode(bytes)
    }

    public var description: String {
        "\(name) \(type)"
    }
}

/// Why no query could be built for a name.
public enum DNSQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as given, and what is wrong with it.
    case invalidName(String, String)

    public var description: String {
        switch self {
        case .invalidName(let name, let reason): return "cannot ask DNS for \(LogQuote.singleQuoted(name)): \(reason)"
        }
    }
}
