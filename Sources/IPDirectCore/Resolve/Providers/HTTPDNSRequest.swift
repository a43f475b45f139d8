/// The HTTP request an HTTPDNS format asks for: a GET (RFC 9110 §9.3.1) without a body, or, for
/// RFC 8484 §4.1 `method = "post"`, a POST whose body is the DNS message; the connection layer adds
/// Host (or :authority), Content-Length, keep-alive and the rest.
public struct HTTPDNSRequest: Equatable, Sendable, CustomStringConvertible {
    /// The two methods HTTPDNS providers take (RFC 8484 §4.1 allows exactly these).
    public enum Method: String, Equatable, Sendable, CustomStringConvertible {
        case get = "GET"
        case post = "POST"

        public var description: String { rawValue }
    }

    public var method: Method
    /// The origin-form request target (RFC 9112 §3.2.1): path and query.
    public var target: String
    /// Header fields the format needs beyond the usual ones (`Accept: application/dns-json`).
    public var headerFields: [Field]
    /// The request content: empty for GET, the DNS message for an RFC 8484 POST.
    public var body: [UInt8]

    public struct Field: Equatable, Sendable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(target: String, headerFields: [Field] = [], method: Method = .get, body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headerFields = headerFields
        self.body = body
    }

    public var description: String {
        body.isEmpty ? "\(method) \(target)" : "\(method) \(target) (\(body.count) bytes)"
    }

    /// `path` with `parameters` appended to its query (RFC 3986 §3.4), each value percent-encoded.
    public static func target(path: String, _ parameters: [(String, String)]) -> String {
        let query = parameters.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        let base = path.isEmpty ? "/" : path
        return base + (base.contains("?") ? "&" : "?") + query
    }

    /// RFC 3986 §2.3 unreserved characters and `,` stay; everything else becomes %XX. The comma is a
    /// sub-delimiter RFC 3986 §3.4 allows in a query, and Alibaba Cloud documents `query=4,6` so. Host names are only
    /// letters, digits, `-` and `.`, so this only matters for credentials and garbage input, which
    /// must never split or extend the query.
    static func percentEncoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            if isUnreserved(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return encoded
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ","):
            return true
        default:
            return false
        }
    }
}
