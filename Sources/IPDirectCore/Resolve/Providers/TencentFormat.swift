/// The `tencent` HTTPDNS format: Tencent Cloud DNSPod D+.
///
/// `GET /d?dn=NAME&ttl=1&type=addrs` answers `v4;v4,TTL-v6;v6,TTL` (`type=addrs`), `v4;v4,TTL`
/// (no type, A only) or `v6;v6,TTL` (`type=AAAA`). An empty answer or `0` for a family means it
/// has no address. The HTTPS form adds `token=`; the encrypted form sends `id=` and `alg=` and
/// carries `dn` and the answer as hex ciphertext, which the I/O layer (`DNSPodCipher`) handles.
public enum TencentFormat {
    /// What D+ answers for a family without addresses.
    static let noAddressMarker = "0"
    /// Separates the IPv4 part from the IPv6 part of a `type=addrs` answer.
    static let familySeparator: Character = "-"
    /// Separates the addresses of one family.
    static let addressSeparator: Character = ";"
    /// Separates a family's addresses from their TTL (present because every request sends `ttl=1`).
    static let ttlSeparator: Character = ","

    /// The cipher of the encrypted form, sent as `alg=`.
    public enum CipherAlgorithm: String, Sendable, CaseIterable, CustomStringConvertible {
        /// DES-ECB with PKCS#5 padding; the key is the 8 configured key bytes.
        case des
        /// AES-128-CBC with PKCS#7 padding; the ciphertext is preceded by its 16-byte IV.
        case aes

        public var description: String { rawValue }
    }

    /// `GET {endpointPath}?dn=NAME[&ip=CLIENT]&ttl=1[&type=..][&token=TOKEN]`; the token is the HTTPS
    /// form's, `ip=` the ECS address D+ answers for (without it, the caller's address).
    public static func request(endpointPath: String, name: String, families: [AddressFamily],
                               token: String? = nil, clientIP: IPAddress? = nil) -> HTTPDNSRequest
    {
        var parameters = [("dn", name)]
        if let clientIP { parameters.append(("ip", clientIP.description)) }
        parameters.append(("ttl", "1"))
        if let type = typeValue(families) { parameters.append(("type", type)) }
        if let token { parameters.append(("token", token)) }
        return HTTPDNSRequest(target: HTTPDNSRequest.target(path: endpointPath, parameters))
    }

    /// `GET {endpointPath}?dn=HEX[&ip=HEX]&id=ID&alg=des|aes&ttl=1[&type=..]`, `encryptedName` being the
    /// hex ciphertext of the name and `encryptedClientIP` that of the ECS address: D+ documents both
    /// `dn` and `ip` as encrypted in this form, `id`, `alg`, `ttl` and `type` as plain.
    public static func encryptedRequest(endpointPath: String, encryptedName: String, keyID: String,
                                        algorithm: CipherAlgorithm, families: [AddressFamily],
                                        encryptedClientIP: String? = nil) -> HTTPDNSRequest
    {
        var parameters = [("dn", encryptedName)]
        if let encryptedClientIP { parameters.append(("ip", encryptedClientIP)) }
        parameters += [("id", keyID), ("alg", algorithm.rawValue), ("ttl", "1")]
        if let type = typeValue(families) { parameters.append(("type", type)) }
        return HTTPDNSRequest(target: HTTPDNSRequest.target(path: endpointPath, parameters))
    }

    /// The addresses in a plain (or decrypted) answer to a request for `families`. The format does
    /// not repeat the name, so there is no name to check here.
    public static func parseAnswer(_ body: [UInt8], families: [AddressFamily])
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        Result { () throws(ProviderAnswerError) in try answer(body, families: families) }
    }

    private static func answer(_ body: [UInt8], families: [AddressFamily]) throws(ProviderAnswerError) -> ProviderAnswer {
        try ProviderAnswerLimits.checkBodySize(body)
        guard body.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || isWhitespace($0) }) else {
            throw .malformedAnswer("the answer is not printable ASCII")
        }
        let text = String(decoding: body, as: UTF8.self)
            .trimmingASCIIWhitespace()
        if text.isEmpty || text == noAddressMarker { return .noAddresses }
        let asked = AddressFamily.allCases.filter(families.contains)
        let parts = text.split(separator: familySeparator, omittingEmptySubsequences: false)
        guard parts.count <= asked.count else {
            throw .malformedAnswer("\(parts.count) '-'-separated parts for \(asked.count) address families")
        }
        var answered: [AnsweredAddress] = []
        for (part, family) in zip(parts, asked) {
            answered += try addresses(in: part, family: family)
            try ProviderAnswerLimits.checkAddressCount(answered.count)
        }
        return .from(answered)
    }

    /// `ip;ip,TTL`, or `0` / nothing for no address.
    private static func addresses(in part: Substring, family: AddressFamily) throws(ProviderAnswerError) -> [AnsweredAddress] {
        if part.isEmpty || part == noAddressMarker { return [] }
        guard let comma = part.lastIndex(of: ttlSeparator) else { throw .invalidTTL("missing") }
        let ttlText = part[part.index(after: comma)...]
        guard ttlText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let seconds = Int(ttlText), let ttl = ProviderAnswerLimits.ttl(seconds) else {
            throw .invalidTTL(String(ttlText))
        }
        let texts = part[..<comma].split(separator: addressSeparator, omittingEmptySubsequences: false)
        try ProviderAnswerLimits.checkAddressCount(texts.count)
        var answered: [AnsweredAddress] = []
        for text in texts {
            answered.append(AnsweredAddress(address: try ProviderAnswerLimits.address(text, family: family), ttl: ttl))
        }
        return answered
    }

    /// No `type` asks for A only; `AAAA` for IPv6 only; `addrs` for both.
    private static func typeValue(_ families: [AddressFamily]) -> String? {
        switch (families.contains(.v4), families.contains(.v6)) {
        case (true, true): return "addrs"
        case (false, true): return "AAAA"
        default: return nil
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (D+ may end its answer with one).
    fileprivate func trimmingASCIIWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
