import CEvent
import IPDirectCore

/// The question a DNS message carries (RFC 1035 §4.1.2): name, type and class.
struct DNSQuestion: Equatable, CustomStringConvertible {
    /// Lower case, no trailing dot; unusual octets as c-ares escapes them (`\.`, `\DDD`).
    let name: String
    let type: UInt16
    let dnsClass: UInt16

    /// Setting this bit turns an ASCII capital into its small letter.
    /// QTYPE and QCLASS follow the name, 16 bits each.
    private static let typeAndClassSize = 4

    /// Reads the first question of a message whose header has been checked. The name is expanded by
    /// c-ares, which follows compression pointers (RFC 1035 §4.1.4) and refuses loops and overruns.
    static func read(_ bytes: [UInt8]) -> Result<DNSQuestion, DNSAnswerError> {
        let nameOffset = DNSAnswer.headerSize
        var expanded: UnsafeMutablePointer<CChar>?
        var encodedLength = 0
        let status = bytes.withUnsafeBufferPointer { message in
            ares_expand_name(message.baseAddress! + nameOffset, message.baseAddress, Int32(message.count),
                             &expanded, &encodedLength)
        }
        defer { if let expanded { ares_free_string(expanded) } }
        guard status == ARES_SUCCESS, let expanded else {
            return .failure(.malformed("question name unreadable (\(String(cString: ares_strerror(status))))"))
        }
        let typeOffset = nameOffset + encodedLength
        guard typeOffset + typeAndClassSize <= bytes.count else {
            return .failure(.malformed("question ends after its name"))
        }
        func word(at offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }
        return .success(DNSQuestion(
            name: HostName.normalized(String(cString: expanded)),
            type: word(at: typeOffset),
            dnsClass: word(at: typeOffset + 2)))
    }

    var description: String {
        let typeName = DNSRecordType(rawValue: type)?.description ?? "TYPE\(type)"
        let className = dnsClass == DNSRecordType.internetClass ? "" : " CLASS\(dnsClass)"
        return "\(name) \(typeName)\(className)"
    }
}
