/// The `aliyun` HTTPDNS format: Alibaba Cloud HTTPDNS v1.
///
/// `GET /{account_id}/d?host=NAME&query=4,6` answers
/// `{"host":"NAME","ips":["v4",..],"ipsv6":["v6",..],"ttl":N,"origin_ttl":N}`; errors come as
/// `{"code":"InvalidAccount"}`. With a secret, the signed form `/{account_id}/sign_d` adds `t`, the
/// expiry in unix seconds, and `s = md5_hex("NAME-SECRET-EXPIRY")`; the MD5 itself is computed by
/// the I/O layer (`AliyunRequestSigner`), which owns the crypto library.
public enum AliyunFormat {
    /// The service refuses a signature whose expiry lies more than 24 hours ahead.
    public static let maximumSignatureLifetime = 24 * 60 * 60

    /// `GET /{account_id}/d?host=NAME&query=4,6[&ip=CLIENT]` (or `query=4` / `query=6`). `ip=` names the
    /// client the answer is for (the service's own ECS); without it the service uses the caller's address.
    public static func request(accountID: String, name: String, families: [AddressFamily],
                               clientIP: IPAddress? = nil) -> HTTPDNSRequest {
        HTTPDNSRequest(target: HTTPDNSRequest.target(
            path: "/\(HTTPDNSRequest.percentEncoded(accountID))/d",
            [("host", name), ("query", queryValue(families))] + clientParameter(clientIP)
        ))
    }

    /// `GET /{account_id}/sign_d?host=NAME&query=4,6[&ip=CLIENT]&t=EXPIRY&s=SIGNATURE`; the signature
    /// covers only host, secret and expiry.
    public static func signedRequest(accountID: String, name: String, families: [AddressFamily],
                                     expiry: Int, signature: String, clientIP: IPAddress? = nil) -> HTTPDNSRequest
    {
        HTTPDNSRequest(target: HTTPDNSRequest.target(
            path: "/\(HTTPDNSRequest.percentEncoded(accountID))/sign_d",
            [("host", name), ("query", queryValue(families))] + clientParameter(clientIP)
                + [("t", String(expiry)), ("s", signature)]
        ))
    }

    private static func clientParameter(_ clientIP: IPAddress?) -> [(String, String)] {
        clientIP.map { [("ip", $0.description)] } ?? []
    }

    /// The text whose MD5 is the signature: `NAME-SECRET-EXPIRY`.
    public static func signatureInput(name: String, secret: String, expiry: Int) -> String {
        "\(name)-\(secret)-\(expiry)"
    }

    /// The expiry to sign at `now` (unix seconds): `lifetime` ahead, at most 24 hours, at least 1 s.
    public static func expiry(now: Int, lifetime: Int) -> Int {
        now + min(max(lifetime, 1), maximumSignatureLifetime)
    }

    /// The addresses of `families` for `name` in `body`, or what was wrong. The service has no
    /// NXDOMAIN: a name without addresses answers empty lists.
    public static func parseAnswer(_ body: [UInt8], name: String, families: [AddressFamily])
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        Result { () throws(ProviderAnswerError) in try answer(body, name: name, families: families) }
    }

    private static func answer(_ body: [UInt8], name: String, families: [AddressFamily])
        throws(ProviderAnswerError) -> ProviderAnswer
    {
        let document = try ProviderAnswerLimits.jsonObject(body)
        if let code = document["code"] {
            throw .providerError(code: code.stringValue ?? code.kindName)
        }
        guard let host = document["host"]?.stringValue else { throw .malformedAnswer("host is missing") }
        let asked = HostName.normalized(name)
        guard HostName.normalized(host) == asked else {
            throw .nameMismatch(asked: asked, answered: HostName.normalized(host))
        }
        guard let ttlValue = document["ttl"] else { throw .invalidTTL("missing") }
        guard let seconds = ttlValue.integerValue, let ttl = ProviderAnswerLimits.ttl(seconds) else {
            throw .invalidTTL(ttlValue.stringValue ?? ttlValue.kindName)
        }
        var answered: [AnsweredAddress] = []
        for family in AddressFamily.allCases {
            let list = try addressTexts(document[listName(family)], listName: listName(family))
            guard families.contains(family) else { continue }
            for text in list {
                answered.append(AnsweredAddress(address: try ProviderAnswerLimits.address(text, family: family), ttl: ttl))
                try ProviderAnswerLimits.checkAddressCount(answered.count)
            }
        }
        return .from(answered)
    }

    /// The strings of an `ips` or `ipsv6` list; a missing list is an empty one.
    private static func addressTexts(_ value: JSONValue?, listName: String) throws(ProviderAnswerError) -> [String] {
        guard let value else { return [] }
        guard let elements = value.arrayValue else { throw .malformedAnswer("\(listName) is not an array") }
        try ProviderAnswerLimits.checkAddressCount(elements.count)
        var texts: [String] = []
        for element in elements {
            guard let text = element.stringValue else { throw .malformedAnswer("\(listName) holds a \(element.kindName)") }
            texts.append(text)
        }
        return texts
    }

    private static func listName(_ family: AddressFamily) -> String {
        family == .v4 ? "ips" : "ipsv6"
    }

    /// `4`, `6` or `4,6`, in that order whatever order `families` has.
    private static func queryValue(_ families: [AddressFamily]) -> String {
        AddressFamily.allCases.filter(families.contains).map { $0 == .v4 ? "4" : "6" }.joined(separator: ",")
    }
}
