import CEvent
import IPDirectCore

/// What an RFC 8484 response says about the addresses of the name asked.
///
/// The header and question are checked here; the answer records are read by c-ares
/// (`ares_parse_a_reply` / `ares_parse_aaaa_reply`), which follows a CNAME chain inside the answer
/// section from the question name and ignores records for other owners.
public enum DNSAnswer: Sendable, Equatable, CustomStringConvertible {
    /// The addresses of the asked type, and the smallest TTL (seconds) of the records used,
    /// CNAMEs of the chain included (RFC 2181 §5.2: a chain is only as fresh as its oldest link).
    case addresses([IPAddress], ttl: UInt32)
    /// NXDOMAIN (RFC 2308 §2.1): the name does not exist. A negative answer, not an error.
    case nameDoesNotExist
    /// NOERROR without a record of the asked type (RFC 2308 §2.2 "NODATA"). A negative answer.
    case noData

    /// The 16-bit length prefix of DNS over TCP bounds every message (RFC 1035 §4.2.2, RFC 8484 §6).
    public static let maximumMessageSize = 65535
    /// Addresses kept from one answer; more only cost memory, a connection tries a handful.
    public static let maximumAddresses = 64
    /// ID, flags and four section counts of 16 bits each (RFC 1035 §4.1.1).
    static let headerSize = 12

    /// Reads `bytes` as the response to a query for `askedName` and `type`.
    public static func parse(_ bytes: [UInt8], askedName: String, type: DNSRecordType) -> Result<DNSAnswer, DNSAnswerError> {
        guard bytes.count <= maximumMessageSize else { return .failure(.tooLarge(bytes.count)) }
        guard bytes.count >= headerSize else {
            return .failure(.malformed("\(bytes.count) bytes, shorter than the \(headerSize)-byte header"))
        }
        let header = DNSHeader(bytes)
        guard header.isResponse else { return .failure(.malformed("the QR bit is clear, so it is a query")) }
        guard header.opcode == DNSHeader.standardQueryOpcode else {
            return .failure(.malformed("opcode \(header.opcode), not a standard query"))
        }
        guard !header.isTruncated else { return .failure(.truncated) }
        let code = header.responseCode
        // A failure is reported as such even if the server did not echo the question: it is what
        // an operator can act on, and nothing from such a response is cached.
        guard code == .noError || code == .nameError else { return .failure(.serverError(code)) }
        guard header.questionCount == 1 else {
            return .failure(.malformed("\(header.questionCount) questions, expected 1"))
        }
        let question: DNSQuestion
        switch DNSQuestion.read(bytes) {
        case .success(let read): question = read
        case .failure(let error): return .failure(error)
        }
        let asked = DNSQuestion(name: HostName.normalized(askedName), type: type.rawValue, dnsClass: DNSRecordType.internetClass)
        // RFC 8484 §4.2 leaves matching answers to questions to the client, and an answer for
        // another name must never be cached under this one.
        guard question == asked else {
            return .failure(.questionMismatch(asked: asked.description, answered: question.description))
        }
        if code == .nameError { return .success(.nameDoesNotExist) }
        return readAddresses(bytes, type: type)
    }

    /// Reads the response to `query`.
    public static func parse(_ bytes: [UInt8], for query: DNSQuery) -> Result<DNSAnswer, DNSAnswerError> {
        parse(bytes, askedName: query.name, type: query.type)
    }

    public var description: String {
        switch self {
        case .addresses(let addresses, let ttl):
            return addresses.map(String.init(describing:)).joined(separator: ",") + " ttl=\(ttl)"
        case .nameDoesNotExist:
            return "NXDOMAIN"
        case .noData:
            return "no data"
        }
    }

    private static func readAddresses(_ bytes: [UInt8], type: DNSRecordType) -> Result<DNSAnswer, DNSAnswerError> {
        var found: [(IPAddress, Int32)] = []
        let status: Int32 = bytes.withUnsafeBufferPointer { message in
            var count = Int32(maximumAddresses)
            switch type {
            case .a:
                var records = [ares_addrttl](repeating: ares_addrttl(), count: maximumAddresses)
                let status = ares_parse_a_reply(message.baseAddress, Int32(message.count), nil, &records, &count)
                for record in records.prefix(Int(max(0, count))) where status == ARES_SUCCESS {
                    let address = withUnsafeBytes(of: record.ipaddr) { IPAddress(bytes: Array($0)) }
                    if let address { found.append((address, record.ttl)) }
                }
                return status
            case .aaaa:
                var records = [ares_addr6ttl](repeating: ares_addr6ttl(), count: maximumAddresses)
                let status = ares_parse_aaaa_reply(message.baseAddress, Int32(message.count), nil, &records, &count)
                for record in records.prefix(Int(max(0, count))) where status == ARES_SUCCESS {
                    let address = withUnsafeBytes(of: record.ip6addr) { IPAddress(bytes: Array($0)) }
                    if let address { found.append((address, record.ttl)) }
                }
                return status
            }
        }
        switch status {
        case ARES_SUCCESS:
            // A chain of CNAMEs that ends without an address record is NODATA (RFC 2308 §2.2.1).
            guard !found.isEmpty else { return .success(.noData) }
            // c-ares stores the 32-bit TTL in an int; RFC 2181 §8 says a TTL with the top bit
            // set is to be read as 0.
            let ttl = found.map { UInt32(max(0, $0.1)) }.min()!
            return .success(.addresses(found.map(\.0), ttl: ttl))
        case ARES_ENODATA:
            return .success(.noData)
        default:
            return .failure(.malformed("answer records: \(String(cString: ares_strerror(status)))"))
        }
    }
}
