/// The `json` HTTPDNS format: Google's `/resolve` and Cloudflare's `/dns-query` JSON API, both
/// taking `?name=&type=` and answering `{"Status":0,"Question":[..],"Answer":[..]}` with
/// `Accept: application/dns-json`.
///
/// The answer mirrors a DNS message: `Status` is the RCODE (RFC 1035 §4.1.1), `Answer` the answer
/// section, where CNAME records come before the addresses they lead to.
public enum JSONDNSFormat {
    /// Cloudflare answers JSON only when asked for this media type; Google ignores it.
    public static let mediaType = "application/dns-json"
    /// The CNAME RR TYPE (RFC 1035 §3.2.2); these records extend the chain of acceptable owners.
    static let canonicalNameType = 5

    /// `GET {endpointPath}?name=NAME&type=A|AAAA[&edns_client_subnet=NET/LEN]`; the subnet parameter is
    /// Google's name for RFC 7871 ECS (https://developers.google.com/speed/public-dns/docs/doh/json).
    public static func request(endpointPath: String, name: String, family: AddressFamily,
                               clientSubnet: ClientSubnet? = nil) -> HTTPDNSRequest {
        var parameters = [("name", name), ("type", family.recordTypeName)]
        if let clientSubnet { parameters.append((clientSubnetParameter, clientSubnet.description)) }
        return HTTPDNSRequest(
            target: HTTPDNSRequest.target(path: endpointPath, parameters),
            headerFields: [.init(name: "Accept", value: mediaType)]
        )
    }

    /// The query parameter carrying the client subnet.
    public static let clientSubnetParameter = "edns_client_subnet"

    /// The addresses of `family` for `name` in `body`, a negative answer, or what was wrong.
    public static func parseAnswer(_ body: [UInt8], name: String, family: AddressFamily)
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        Result { () throws(ProviderAnswerError) in try answer(body, name: name, family: family) }
    }

    private static func answer(_ body: [UInt8], name: String, family: AddressFamily)
        throws(ProviderAnswerError) -> ProviderAnswer
    {
        let document = try ProviderAnswerLimits.jsonObject(body)
        guard let status = document["Status"]?.integerValue else {
            throw .malformedAnswer("Status is missing or not an integer")
        }
        let asked = HostName.normalized(name)
        try checkQuestion(document["Question"], asked: asked, family: family)
        switch status {
        case Int(DNSResponseCode.noError.rawValue): break
        case Int(DNSResponseCode.nameError.rawValue): return .nameDoesNotExist
        default: throw .serverFailure(rcode: status)
        }
        guard let records = document["Answer"] else { return .noAddresses }
        guard let records = records.arrayValue else { throw .malformedAnswer("Answer is not an array") }
        return .from(try addresses(in: records, asked: asked, family: family))
    }

    /// The question must be the one asked: one entry, same name (RFC 4343: case does not matter),
    /// same type.
    private static func checkQuestion(_ question: JSONValue?, asked: String, family: AddressFamily)
        throws(ProviderAnswerError)
    {
        guard let entries = question?.arrayValue, entries.count == 1 else {
            throw .malformedAnswer("Question is missing or does not hold exactly one entry")
        }
        guard let questionName = entries[0]["name"]?.stringValue else {
            throw .malformedAnswer("the Question has no name")
        }
        let answered = HostName.normalized(questionName)
        guard answered == asked else { throw .nameMismatch(asked: asked, answered: answered) }
        if let type = entries[0]["type"], type.integerValue != family.recordType {
            throw .malformedAnswer("the Question's type is not \(family.recordTypeName)")
        }
    }

    /// Records of the type asked, with their TTLs. Owners must be the name asked or a name a CNAME
    /// before them led to, so an answer cannot slip in addresses for an unrelated name.
    private static func addresses(in records: [JSONValue], asked: String, family: AddressFamily)
        throws(ProviderAnswerError) -> [AnsweredAddress]
    {
        var chain: Set<String> = [asked]
        var answered: [AnsweredAddress] = []
        for record in records {
            guard let type = record["type"]?.integerValue else {
                throw .malformedAnswer("an Answer record has no integer type")
            }
            guard type == canonicalNameType || type == AddressFamily.v4.recordType
                || type == AddressFamily.v6.recordType else { continue }
            guard let owner = record["name"]?.stringValue, let data = record["data"]?.stringValue else {
                throw .malformedAnswer("an Answer record lacks its name or data")
            }
            guard chain.contains(HostName.normalized(owner)) else {
                throw .nameMismatch(asked: asked, answered: HostName.normalized(owner))
            }
            if type == canonicalNameType {
                chain.insert(HostName.normalized(data))
                continue
            }
            guard type == family.recordType else {
                throw .malformedAnswer("a \(family.recordTypeName) query was answered with type \(type)")
            }
            guard let ttlValue = record["TTL"], let seconds = ttlValue.integerValue,
                  let ttl = ProviderAnswerLimits.ttl(seconds) else {
                throw .invalidTTL(record["TTL"].map(describe) ?? "missing")
            }
            answered.append(AnsweredAddress(address: try ProviderAnswerLimits.address(data, family: family), ttl: ttl))
            try ProviderAnswerLimits.checkAddressCount(answered.count)
        }
        return answered
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .number(let text), .string(let text): return text
        default: return value.kindName
        }
    }
}
