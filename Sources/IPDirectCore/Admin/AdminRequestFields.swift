/// What the admin listener reads from a request head to tell a local tool from a web page: the Host, every
/// Origin and whether the marker field is there. Copied out as text so the head's buffer can be drained.
public struct AdminRequestFields: Sendable, Equatable {
    /// The field a state-changing admin request must carry, with `markerValue`. A page can only send a field
    /// of its own naming after a CORS preflight (Fetch, "CORS-safelisted request-header"), which the admin
    /// API never answers with permission, and an HTML form cannot send one at all.
    public static let markerName = "X-IPDirect-Admin"
    public static let markerValue = "1"

    /// The Host value; nil when the request has none (HTTP/1.0, RFC 9112 §3.2 asks it of 1.1 only).
    public var host: String?
    /// Each Origin value in order; a browser sends at most one (RFC 6454 §7.3).
    public var origins: [String]
    /// Whether some `X-IPDirect-Admin` field has the value `1`.
    public var hasMarker: Bool

    public init(host: String?, origins: [String] = [], hasMarker: Bool = false) {
        self.host = host
        self.origins = origins
        self.hasMarker = hasMarker
    }

    /// Reads the fields from a head parsed out of `bytes`. The parser has already checked Host's syntax and
    /// that there is at most one.
    public init(_ head: RequestHead, in bytes: UnsafeRawBufferPointer) {
        self.init(host: nil)
        for field in head.fields {
            if bytes.equalsIgnoringCase(field.name, "host") {
                host = String(decoding: bytes[field.value], as: UTF8.self)
            } else if bytes.equalsIgnoringCase(field.name, "origin") {
                origins.append(String(decoding: bytes[field.value], as: UTF8.self))
            } else if bytes.equalsIgnoringCase(field.name, "x-ipdirect-admin") {
                hasMarker = hasMarker || bytes.equals(field.value, "1")
            }
        }
    }
}
