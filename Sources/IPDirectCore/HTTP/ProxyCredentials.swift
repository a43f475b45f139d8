/// The user and password a request carries in `Proxy-Authorization: Basic ...` (RFC 7617 §2, RFC 9110
/// §11.7.2). The field is hop-by-hop: `HeadRewriter` never forwards it upstream.
public struct ProxyCredentials: Sendable, Equatable {
    public var user: String
    public var password: String

    /// What a request head says about its credentials.
    public enum Found: Sendable, Equatable {
        case none
        case basic(ProxyCredentials)
        /// Present but unusable: the reason names the problem, never the value.
        case malformed(String)
    }

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Finds the one Proxy-Authorization field of `head` (parsed from `bytes`) and decodes it.
    public static func find(in head: RequestHead, bytes: UnsafeRawBufferPointer) -> Found {
        var found: Found = .none
        for field in head.fields where field.known == .proxyAuthorization {
            guard case .none = found else { return .malformed("more than one Proxy-Authorization field") }
            found = decode(UnsafeRawBufferPointer(rebasing: bytes[field.value]))
        }
        return found
    }

    /// `Basic <base64 of user:password>`; the scheme name is case-insensitive (RFC 9110 §11.1).
    static func decode(_ value: UnsafeRawBufferPointer) -> Found {
        let schemeLength = 6
        guard value.count > schemeLength, value.equalsIgnoringCase(0..<schemeLength, "basic ") else {
            return .malformed("only the Basic scheme is accepted")
        }
        let token = String(decoding: value[schemeLength...], as: UTF8.self).trimmingSpaces
        guard case .success(let decoded) = Base64.decode(token) else {
            return .malformed("the Basic credentials are not base64")
        }
        // RFC 7617 §2: the user-id cannot contain a colon; the password may.
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")),
              let user = String(validating: decoded[..<colon], as: UTF8.self),
              let password = String(validating: decoded[(colon + 1)...], as: UTF8.self),
              !user.isEmpty else {
            return .malformed("the Basic credentials are not user:password in UTF-8")
        }
        return .basic(ProxyCredentials(user: user, password: password))
    }
}

private extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(scalars)
    }
}
