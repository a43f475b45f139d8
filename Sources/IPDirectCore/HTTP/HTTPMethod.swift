/// Request methods the proxy treats specially; method names are case-sensitive (RFC 9110 §9.1),
/// so "get" is a valid but different method and lands in `other`.
public enum HTTPMethod: Sendable, Equatable {
    case get, head, post, put, delete, connect, options, trace, patch
    /// Any other method that is a valid token; its bytes are in `RequestHead.methodBytes`.
    case other
}

extension HTTPMethod: CustomStringConvertible {
    public var description: String {
        switch self {
        case .get: return "GET"
        case .head: return "HEAD"
        case .post: return "POST"
        case .put: return "PUT"
        case .delete: return "DELETE"
        case .connect: return "CONNECT"
        case .options: return "OPTIONS"
        case .trace: return "TRACE"
        case .patch: return "PATCH"
        case .other: return "other"
        }
    }
}

extension HTTPMethod {
    /// Classifies an already validated method token.
    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        switch range.count {
        case 3:
            if bytes.equals(range, "GET") { self = .get; return }
            if bytes.equals(range, "PUT") { self = .put; return }
        case 4:
            if bytes.equals(range, "POST") { self = .post; return }
            if bytes.equals(range, "HEAD") { self = .head; return }
        case 5:
            if bytes.equals(range, "TRACE") { self = .trace; return }
            if bytes.equals(range, "PATCH") { self = .patch; return }
        case 6:
            if bytes.equals(range, "DELETE") { self = .delete; return }
        case 7:
            if bytes.equals(range, "CONNECT") { self = .connect; return }
            if bytes.equals(range, "OPTIONS") { self = .options; return }
        default:
            break
        }
        self = .other
    }
}
