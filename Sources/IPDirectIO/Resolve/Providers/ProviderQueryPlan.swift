import IPDirectCore

/// One HTTP request of a provider's query for a name, and how to read its answer.
struct PlannedExchange {
    /// The address families this request asks for (DoH and JSON ask one per request).
    let families: [AddressFamily]
    let request: HTTPDNSRequest
    /// Reads a successful response's body (and media type); a failure says what was wrong.
    let read: (_ body: [UInt8], _ contentType: String?) -> Result<ProviderAnswer, HTTPDNSQueryFailure>
}

/// How a provider's format asks for a name: the requests to send and how to read each answer. Built once
/// per provider from its settings and credentials.
enum ProviderQueryPlan {
    /// RFC 8484: one wire-format query per family, by GET `?dns=` or by POST.
    case doh(path: String, post: Bool)
    /// Google/Cloudflare JSON: one `?name=&type=` per family.
    case json(path: String)
    /// Alibaba Cloud: one request for both families, signed when a secret is configured.
    case aliyun(accountID: String, signer: AliyunRequestSigner?)
    /// DNSPod D+: one request for both families; with a token (HTTPS form) or encrypted.
    case tencent(path: String, token: String?, encryption: (cipher: DNSPodCipher, keyID: String)?)

    /// RFC 8484 §6: the media type of DNS messages over HTTP.
    static let dnsMessageType = "application/dns-message"

    func exchanges(for name: String, unixSeconds: Int) -> Result<[PlannedExchange], HTTPDNSQueryFailure> {
        let both = AddressFamily.allCases
        switch self {
        case .doh(let path, let post):
            var planned: [PlannedExchange] = []
            for family in both {
                let query: DNSQuery
                do { query = try DNSQuery(name: name, type: family == .v4 ? .a : .aaaa) } catch {
                    return .failure(HTTPDNSQueryFailure(error))
                }
                planned.append(PlannedExchange(families: [family], request: Self.dohRequest(query, path: path, post: post),
                                               read: { body, contentType in Self.readDNSMessage(body, contentType, query) }))
            }
            return .success(planned)
        case .json(let path):
            return .success(both.map { family in
                PlannedExchange(families: [family],
                                request: JSONDNSFormat.request(endpointPath: path, name: name, family: family),
                                read: { body, _ in
                                    JSONDNSFormat.parseAnswer(body, name: name, family: family).mapError(HTTPDNSQueryFailure.init)
                                })
            })
        case .aliyun(let accountID, let signer):
            let request = signer?.request(name: name, families: both, now: unixSeconds)
                ?? AliyunFormat.request(accountID: accountID, name: name, families: both)
            return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                AliyunFormat.parseAnswer(body, name: name, families: both).mapError(HTTPDNSQueryFailure.init)
            })])
        case .tencent(let path, let token, let encryption):
            guard let encryption else {
                let request = TencentFormat.request(endpointPath: path, name: name, families: both, token: token)
                return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                    TencentFormat.parseAnswer(body, families: both).mapError(HTTPDNSQueryFailure.init)
                })])
            }
            let encryptedName: String
            do { encryptedName = try encryption.cipher.encryptName(name) } catch { return .failure(HTTPDNSQueryFailure(error)) }
            let request = TencentFormat.encryptedRequest(endpointPath: path, encryptedName: encryptedName,
                                                         keyID: encryption.keyID, algorithm: encryption.cipher.algorithm,
                                                         families: both)
            return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                encryption.cipher.parseAnswer(body, families: both).mapError(HTTPDNSQueryFailure.init)
            })])
        }
    }

    /// RFC 8484 §4.1: GET carries the message as `dns=` base64url without padding; POST as the body.
    private static func dohRequest(_ query: DNSQuery, path: String, post: Bool) -> HTTPDNSRequest {
        let accept = HTTPDNSRequest.Field(name: "Accept", value: dnsMessageType)
        guard post else {
            return HTTPDNSRequest(target: HTTPDNSRequest.target(path: path, [("dns", query.base64URL)]), headerFields: [accept])
        }
        return HTTPDNSRequest(target: path, headerFields: [accept, .init(name: "Content-Type", value: dnsMessageType)],
                              method: .post, body: query.bytes)
    }

    private static func readDNSMessage(_ body: [UInt8], _ contentType: String?, _ query: DNSQuery) -> Result<ProviderAnswer, HTTPDNSQueryFailure> {
        // RFC 8484 §4.2.1: a response that is not application/dns-message is not a DNS answer (an error
        // page, a captive portal), whatever its status.
        let mediaType = contentType.map { String($0.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }).lowercased() }
        guard mediaType == dnsMessageType else {
            return .failure(HTTPDNSQueryFailure("answered with media type \(contentType ?? "none"), not \(dnsMessageType)"))
        }
        switch DNSAnswer.parse(body, for: query) {
        case .failure(let error): return .failure(HTTPDNSQueryFailure(error))
        case .success(.addresses(let addresses, let ttl)):
            return .success(.addresses(addresses.map { AnsweredAddress(address: $0, ttl: ttl) }))
        case .success(.nameDoesNotExist): return .success(.nameDoesNotExist)
        case .success(.noData): return .success(.noAddresses)
        }
    }
}

extension ProviderQueryPlan {
    /// The plan for a configured provider; reads its credentials now, so a missing secret stops startup
    /// with a clear reason instead of failing every query later.
    init(settings: HTTPDNSProviderSettings) throws(StartupError) {
        let path = settings.url.path
        switch settings.format {
        case .doh:
            self = .doh(path: path, post: settings.method == .post)
        case .json:
            self = .json(path: path)
        case .aliyun:
            guard let accountID = settings.accountID else {
                throw StartupError("provider \(settings.name): aliyun needs account_id")
            }
            var signer: AliyunRequestSigner?
            if let source = settings.secret {
                let secret = try CredentialReader.read(source, for: settings.name, purpose: "signing secret")
                signer = AliyunRequestSigner(accountID: accountID, secret: secret)
            }
            self = .aliyun(accountID: accountID, signer: signer)
        case .tencent:
            var token: String?
            if let source = settings.token {
                token = try CredentialReader.read(source, for: settings.name, purpose: "token")
            }
            var encryption: (cipher: DNSPodCipher, keyID: String)?
            if let keyID = settings.keyID, let algorithm = settings.cipher, let source = settings.secret {
                let key = try CredentialReader.read(source, for: settings.name, purpose: "encryption key")
                do {
                    encryption = (try DNSPodCipher(algorithm: algorithm, key: Array(key.utf8)), keyID)
                } catch {
                    throw StartupError("provider \(settings.name): \(error)")
                }
            }
            self = .tencent(path: path, token: token, encryption: encryption)
        }
    }
}
