/// Bounds every answer parser applies, so a hostile or broken provider cannot make the daemon
/// hold or cache more than a sane answer needs.
public enum ProviderAnswerLimits {
    /// Largest answer body read: real answers are under 1 KiB.
    public static let maximumBodySize = 64 * 1024
    /// Most addresses accepted for one name; an answer with more is refused, not truncated.
    public static let maximumAddressCount = 64
    /// RFC 2181 §8: a TTL is an unsigned 31-bit number of seconds.
    public static let maximumTTL = Int(Int32.max)

    /// The TTL for `value`, or nil when it is outside RFC 2181 §8's range.
    static func ttl(_ value: Int) -> UInt32? {
        (0...maximumTTL).contains(value) ? UInt32(value) : nil
    }

    /// Refuses a body larger than `maximumBodySize`.
    static func checkBodySize(_ body: [UInt8]) throws(ProviderAnswerError) {
        guard body.count <= maximumBodySize else {
            throw .bodyTooLarge(size: body.count, limit: maximumBodySize)
        }
    }

    /// The JSON object a JSON-speaking provider answered, within the body size limit.
    static func jsonObject(_ body: [UInt8]) throws(ProviderAnswerError) -> JSONValue {
        try checkBodySize(body)
        let document: JSONValue
        switch JSONReader.parse(body, sizeLimit: maximumBodySize) {
        case .success(let value): document = value
        case .failure(let failure): throw .malformedJSON(failure)
        }
        guard case .object = document else { throw .malformedAnswer("the answer is not a JSON object") }
        return document
    }

    /// Refuses more than `maximumAddressCount` addresses.
    static func checkAddressCount(_ count: Int) throws(ProviderAnswerError) {
        guard count <= maximumAddressCount else {
            throw .tooManyAddresses(count: count, limit: maximumAddressCount)
        }
    }

    /// Parses `text` strictly as an address of `family`.
    static func address<Text: StringProtocol>(_ text: Text, family: AddressFamily) throws(ProviderAnswerError) -> IPAddress {
        guard let address = IPAddress(text) else { throw .invalidAddress(String(text)) }
        guard family.contains(address) else { throw .wrongAddressFamily(String(text), expected: family) }
        return address
    }
}
