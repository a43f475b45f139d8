import IPDirectCore

/// Builds Alibaba Cloud HTTPDNS's signed requests (`/{account_id}/sign_d`), which need the MD5 this
/// module gets from OpenSSL.
public struct AliyunRequestSigner: Sendable {
    public var accountID: String
    /// The account's signing secret; never logged, and only ever sent as part of an MD5.
    private var secret: String
    /// How far ahead each signature expires, clamped to `AliyunFormat.maximumSignatureLifetime`.
    public var signatureLifetime: Int

    public init(accountID: String, secret: String, signatureLifetime: Int = AliyunFormat.maximumSignatureLifetime) {
        self.accountID = accountID
        self.secret = secret
        self.signatureLifetime = signatureLifetime
    }

    /// `s = md5_hex("NAME-SECRET-EXPIRY")`.
    public func signature(name: String, expiry: Int) -> String {
        MD5Digest.hex(of: AliyunFormat.signatureInput(name: name, secret: secret, expiry: expiry))
    }

    /// The signed request for `name` at `now` (unix seconds), for clients at `clientIP` when given.
    public func request(name: String, families: [AddressFamily], now: Int, clientIP: IPAddress? = nil) -> HTTPDNSRequest {
        let expiry = AliyunFormat.expiry(now: now, lifetime: signatureLifetime)
        return AliyunFormat.signedRequest(accountID: accountID, name: name, families: families, expiry: expiry,
                                          signature: signature(name: name, expiry: expiry), clientIP: clientIP)
    }
}
