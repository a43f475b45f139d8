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
    /// RFC 8484: one wire-format query per family, by GET `?dns=` or by POST; the client subnet as an
    /// ECS option in an OPT record.
    case doh(path: String, post: Bool, clientSubnet: ClientSubnet?)
    /// Google/Cloudflare JSON: one `?name=&type=` per family; the client subnet as `edns_client_subnet=`.
    case json(path: String, clientSubnet: ClientSubnet?)
    /// Alibaba Cloud: one request for both families, signed when a secret is configured; the client
    /// subnet's address as `ip=`.
    case aliyun(accountID: String, signer: AliyunRequestSigner?, clientIP: IPAddress?)
    /// DNSPod D+: one request for both families; with a token (HTTPS form) or encrypted; the client
    /// subnet's address as `ip=`, encrypted like `dn=` in the encrypted form.
    case tencent(path: String, token: String?, encryption: (cipher: DNSPodCipher, keyID: String)?, clientIP: IPAddress?)
    /// RFC 7858: one wire-format query per family, padded (RFC 8467), over the provider's TLS connection;
    /// the client subnet as an ECS option, as for doh. The request's body is the message.
    case dot(clientSubnet: ClientSubnet?)

    /// RFC 8484 §6: the media type of DNS messages over HTTP.
    static let dnsMessageType = "application/dns-message"

    func exchanges(for name: String, unixSeconds: Int) -> Result<[PlannedExchange], HTTPDNSQueryFailure> {
        let both = AddressFamily.allCases
        switch self {
        case .doh(let path, let post, let clientSubnet):
            return Self.dnsMessageExchanges(name, clientSubnet: clientSubnet, paddedTo: nil) { query in
                Self.dohRequest(query.bytes, path: path, post: post)
            }
        case .dot(let clientSubnet):
            return Self.dnsMessageExchanges(name, clientSubnet: clientSubnet, paddedTo: EDNSPadding.queryBlockSize) { query in
                HTTPDNSRequest(target: "", method: .post, body: query.bytes)
            }
        case .json(let path, let clientSubnet):
            return .success(both.map { family in
                PlannedExchange(families: [family],
                                request: JSONDNSFormat.request(endpointPath: path, name: name, family: family,
                                                               clientSubnet: clientSubnet),
                                read: { body, _ in
                                    JSONDNSFormat.parseAnswer(body, name: name, family: family).mapError(HTTPDNSQueryFailure.init)
                                })
            })
        case .aliyun(let accountID, let signer, let clientIP):
            let request = signer?.request(name: name, families: both, now: unixSeconds, clientIP: clientIP)
                ?? AliyunFormat.request(accountID: accountID, name: name, families: both, clientIP: clientIP)
            return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                AliyunFormat.parseAnswer(body, name: name, families: both).mapError(HTTPDNSQueryFailure.init)
            })])
        case .tencent(let path, let token, let encryption, let clientIP):
            guard let encryption else {
                let request = TencentFormat.request(endpointPath: path, name: name, families: both, token: token,
                                                    clientIP: clientIP)
                return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                    TencentFormat.parseAnswer(body, families: both).mapError(HTTPDNSQueryFailure.init)
                })])
            }
            let encryptedName: String
            var encryptedIP: String?
            do throws(DNSPodCipher.Failure) {
                encryptedName = try encryption.cipher.encryptName(name)
                // The vendor encrypts `ip` exactly as `dn` (its own IV under AES).
                if let clientIP { encryptedIP = try encryption.cipher.encryptName(clientIP.description) }
            } catch { return .failure(HTTPDNSQueryFailure(error)) }
            let request = TencentFormat.encryptedRequest(endpointPath: path, encryptedName: encryptedName,
                                                         keyID: encryption.keyID, algorithm: encryption.cipher.algorithm,
                                                         families: both, encryptedClientIP: encryptedIP)
            return .success([PlannedExchange(families: both, request: request, read: { body, _ in
                encryption.cipher.parseAnswer(body, families: both).mapError(HTTPDNSQueryFailure.init)
            })])
        }
    }

    /// One DNS message query per family (A, then AAAA), each read as the answer to its own question.
    private static func dnsMessageExchanges(_ name: String, clientSubnet: ClientSubnet?, paddedTo block: Int?,
                                            request: (DNSQuery) -> HTTPDNSRequest) -> Result<[PlannedExchange], HTTPDNSQueryFailure> {
        var planned: [PlannedExchange] = []
        for family in AddressFamily.allCases {
            let query: DNSQuery
            do {
                query = try DNSQuery(name: name, type: family == .v4 ? .a : .aaaa, clientSubnet: clientSubnet, paddedTo: block)
            } catch {
                return .failure(HTTPDNSQueryFailure(error))
            }
            planned.append(PlannedExchange(families: [family], request: request(query),
                                           read: { body, contentType in Self.readDNSMessage(body, contentType, query) }))
        }
        return .success(planned)
    }

    /// Whether `messageExchange` can carry a DNS message as it is: RFC 8484 and RFC 7858 can, the others
    /// carry names.
    var carriesDNSMessages: Bool {
        switch self {
        case .doh, .dot: return true
        case .json, .aliyun, .tencent: return false
        }
    }

    /// The request that carries `relayed` as a DNS message, and a reader that hands back the response
    /// message; nil for formats that carry names, not messages.
    func messageExchange(_ relayed: DNSRelayedQuery) -> (HTTPDNSRequest, (_ body: [UInt8], _ contentType: String?) -> Result<[UInt8], HTTPDNSQueryFailure>)? {
        switch self {
        case .doh(let path, let post, _):
            return (Self.dohRequest(relayed.wire, path: path, post: post), { body, contentType in
                if let problem = Self.mediaTypeProblem(contentType) { return .failure(problem) }
                return .success(body)
            })
        case .dot:
            // Padded like the provider's own queries (RFC 8467 §4.1).
            let message = relayed.wire(paddedTo: EDNSPadding.queryBlockSize)
            return (HTTPDNSRequest(target: "", method: .post, body: message), { body, _ in
                // The DoT connection gave the query an ID of its own and matched the reply by it (and its
                // question); the relayed query's ID goes back, so the reply reads as the answer to it.
                guard body.count >= 2 else { return .failure(HTTPDNSQueryFailure("a reply without a header")) }
                return .success([UInt8(relayed.upstreamID >> 8), UInt8(relayed.upstreamID & 0xFF)] + body[2...])
            })
        case .json, .aliyun, .tencent:
            return nil
        }
    }

    /// RFC 8484 §4.1: GET carries the message as `dns=` base64url without padding; POST as the body.
    private static func dohRequest(_ message: [UInt8], path: String, post: Bool) -> HTTPDNSRequest {
        let accept = HTTPDNSRequest.Field(name: "Accept", value: dnsMessageType)
        guard post else {
            return HTTPDNSRequest(target: HTTPDNSRequest.target(path: path, [("dns", Base64URL.encode(message))]), headerFields: [accept])
        }
        return HTTPDNSRequest(target: path, headerFields: [accept, .init(name: "Content-Type", value: dnsMessageType)],
                              method: .post, body: message)
    }

    /// RFC 8484 §4.2.1: a response that is not application/dns-message is not a DNS answer (an error page,
    /// a captive portal), whatever its status.
    private static func mediaTypeProblem(_ contentType: String?) -> HTTPDNSQueryFailure? {
        let mediaType = contentType.map { String($0.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" }).lowercased() }
        guard mediaType != dnsMessageType else { return nil }
        return HTTPDNSQueryFailure("answered with media type \(contentType.map { LogQuote.singleQuoted($0) } ?? "none"), not \(dnsMessageType)")
    }

    private static func readDNSMessage(_ body: [UInt8], _ contentType: String?, _ query: DNSQuery) -> Result<ProviderAnswer, HTTPDNSQueryFailure> {
        if let problem = mediaTypeProblem(contentType) { return .failure(problem) }
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
            self = .doh(path: path, post: settings.method == .post, clientSubnet: settings.clientSubnet)
        case .json:
            self = .json(path: path, clientSubnet: settings.clientSubnet)
        case .dot:
            self = .dot(clientSubnet: settings.clientSubnet)
        case .aliyun:
            guard let accountID = settings.accountID else {
                throw StartupError("provider \(settings.name): aliyun needs account_id")
            }
            var signer: AliyunRequestSigner?
            if let source = settings.secret {
                let secret = try CredentialReader.read(source, for: settings.name, purpose: "signing secret")
                signer = AliyunRequestSigner(accountID: accountID, secret: secret)
            }
            self = .aliyun(accountID: accountID, signer: signer, clientIP: settings.clientSubnet?.address)
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
            self = .tencent(path: path, token: token, encryption: encryption, clientIP: settings.clientSubnet?.address)
        }
    }
}
