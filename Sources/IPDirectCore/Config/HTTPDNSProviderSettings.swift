/// How an HTTPDNS provider is asked and how it answers, the `format` key of `[[resolver.httpdns]]`.
public enum HTTPDNSFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// RFC 8484 DNS messages over HTTP (`application/dns-message`).
    case doh
    /// Google's and Cloudflare's JSON API (`?name=&type=`, `application/dns-json`).
    case json
    /// Alibaba Cloud HTTPDNS v1 (`/{account_id}/d?host=`, or `sign_d` with a secret).
    case aliyun
    /// Tencent Cloud DNSPod D+ (`/d?dn=`, with a token or encrypted with `id=` and `alg=`).
    case tencent
    /// RFC 7858 DNS messages over TLS on TCP 853 (`tls://host[:port]`), pipelined on one connection.
    case dot

    public var description: String { rawValue }
}

/// The HTTP method a `doh` provider is asked with (RFC 8484 §4.1 allows both).
public enum HTTPDNSMethod: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The query base64url-encoded in `?dns=`; cacheable by HTTP caches.
    case get
    /// The query as an `application/dns-message` body.
    case post

    public var description: String { rawValue }
}

/// Where a secret comes from. The configuration only names the file or the variable; the value is
/// read at startup and never kept in the configuration, so `description` can go into any log line.
public enum CredentialSource: Sendable, Equatable, CustomStringConvertible {
    /// A file whose contents (without a final line break) are the secret.
    case file(String)
    /// An environment variable of the daemon whose value is the secret.
    case environment(String)

    /// `file:/etc/ipdirect/secret` or `env:ALIYUN_SECRET`: the source, never the value.
    public var description: String {
        switch self {
        case .file(let path): return "file:\(path)"
        case .environment(let name): return "env:\(name)"
        }
    }
}

/// One `[[resolver.httpdns]]` table: an HTTPDNS endpoint, how to reach it without DNS, and the
/// credentials its format needs. Providers are tried in the order the file lists them.
///
///     [[resolver.httpdns]]
///     name = "cloudflare"
///     format = "doh"
///     url = "https://cloudflare-dns.com/dns-query"
///     bootstrap = ["1.1.1.1", "1.0.0.1"]
public struct HTTPDNSProviderSettings: Sendable, Equatable {
    /// Source names that are not providers: `ResolutionSource(cacheLabel:)` reads these back as themselves.
    public static let reservedNames: Set<String> = ["hosts", "system", "literal", "pool"]

    /// Unique among the providers (case-sensitive), 1-64 of `A-Z a-z 0-9 . _ -`; shown in logs,
    /// the access log and `ipdirect resolve` as the source of an answer.
    public var name: String
    public var format: HTTPDNSFormat
    /// What the format queries: the full endpoint for doh, json and tencent, the service base for aliyun.
    public var url: HTTPDNSURL
    /// Addresses the endpoint is reached at, tried in turn; never empty. The URL's host is never
    /// looked up through DNS, since that lookup is what HTTPDNS exists to avoid.
    public var bootstrap: [IPAddress]
    /// PEM file of CAs trusted for this endpoint only; nil uses `[tls]`'s trust. https and tls URLs only.
    public var caFile: String?
    /// Base64 SHA-256 digests of public keys (as `[[tls.pin]]` writes them), one of which the endpoint's
    /// chain must carry; empty pins nothing. https and tls URLs only (RFC 8310 §5's strict profile).
    public var spkiSHA256: [String]
    /// Time one query to one bootstrap address may take before the next address is tried.
    public var timeoutMs: Int
    /// `.post` only on doh providers; every other format is always asked with GET.
    public var method: HTTPDNSMethod
    /// aliyun: the account ID in the request path; required there, nil elsewhere.
    public var accountID: String?
    /// aliyun: the signing secret, which selects the signed `sign_d` form.
    /// tencent: the encryption key of the encrypted form (set together with `keyID` and `cipher`).
    public var secret: CredentialSource?
    /// tencent: the token of the HTTPS form.
    public var token: CredentialSource?
    /// tencent, encrypted form: the key's ID, sent as `id=`.
    public var keyID: String?
    /// tencent, encrypted form: the cipher, sent as `alg=`.
    public var cipher: TencentFormat.CipherAlgorithm?
    /// The names this provider answers (exact or `*.` subdomains, as `bypass` writes them); empty for a
    /// general provider that answers every name. A provider with domains is asked first for the names
    /// that match and never for any other (see `HTTPDNSProviderSelection`).
    public var domains: [HostPattern]
    /// The clients' network, sent to the provider so it answers for them (see `ClientSubnet`); nil
    /// sends nothing and the provider sees the daemon's own address.
    public var clientSubnet: ClientSubnet?

    public init(
        name: String, format: HTTPDNSFormat, url: HTTPDNSURL, bootstrap: [IPAddress],
        caFile: String? = nil, spkiSHA256: [String] = [], timeoutMs: Int = defaultTimeoutMs, method: HTTPDNSMethod = .get,
        accountID: String? = nil, secret: CredentialSource? = nil, token: CredentialSource? = nil,
        keyID: String? = nil, cipher: TencentFormat.CipherAlgorithm? = nil,
        domains: [HostPattern] = [], clientSubnet: ClientSubnet? = nil
    ) {
        self.name = name
        self.format = format
        self.url = url
        self.bootstrap = bootstrap
        self.caFile = caFile
        self.spkiSHA256 = spkiSHA256
        self.timeoutMs = timeoutMs
        self.method = method
        self.accountID = accountID
        self.secret = secret
        self.token = token
        self.keyID = keyID
        self.cipher = cipher
        self.domains = domains
        self.clientSubnet = clientSubnet
    }

    /// Whether the provider answers only the names of its `domains`.
    public var isDomainLimited: Bool { !domains.isEmpty }
}

extension HTTPDNSProviderSettings {
    /// Long enough for a cross-continent TLS handshake, short enough to fail over while a user waits.
    public static let defaultTimeoutMs = 2_000
    /// A provider slower than a minute is down.
    static let timeoutMsRange = 1...60_000
    /// A name is a label in log lines, not a description.
    static let maximumNameLength = 64

    /// Cloudflare's public DoH service (https://developers.cloudflare.com/1.1.1.1/) at its
    /// published anycast addresses.
    public static let cloudflare = HTTPDNSProviderSettings(
        name: "cloudflare", format: .doh, url: HTTPDNSURL("https://cloudflare-dns.com/dns-query")!,
        bootstrap: ["1.1.1.1", "1.0.0.1", "2606:4700:4700::1111", "2606:4700:4700::1001"].map { IPAddress($0)! })

    /// Google Public DNS over HTTPS (https://developers.google.com/speed/public-dns/docs/doh) at its
    /// published anycast addresses.
    public static let google = HTTPDNSProviderSettings(
        name: "google", format: .doh, url: HTTPDNSURL("https://dns.google/dns-query")!,
        bootstrap: ["8.8.8.8", "8.8.4.4", "2001:4860:4860::8888", "2001:4860:4860::8844"].map { IPAddress($0)! })
}
