import IPDirectCore

/// Reads one HTTP/1.1 response as its bytes arrive: the head with the strict `ResponseHeadParser`, then
/// the body by Content-Length, chunked or until close (RFC 9112 §6.3), never past the body limit.
/// Events in (`receive`, `receiveEnd`), a `Progress` out; the connection acts on it.
struct HTTP1ResponseReader {
    enum Progress: Equatable, CustomStringConvertible {
        /// Read more.
        case needMore
        /// The response is complete; `reusable` when keep-alive holds and nothing followed the body.
        case complete(HTTPDNSResponse, reusable: Bool)
        case failed(HTTPDNSTransportError)

        var description: String {
            switch self {
            case .needMore: return "need-more"
            case .complete(let response, let reusable): return "complete \(response) reusable=\(reusable)"
            case .failed(let error): return "failed \(error)"
            }
        }
    }

    /// What the reader waits for.
    private enum State {
        /// The status line and fields; goes to `body` or, for a 1xx, stays here for the final head.
        case head
        /// Body bytes framed as `framing`; goes to `done`.
        case body(framing: ResponseBodyFraming, status: Int, contentType: String?, keepAlive: Bool)
        /// A final result was returned; nothing more is read.
        case done
    }

    /// RFC 9110 §15.2.2: 101 switches protocols, which an HTTPDNS request never asks for.
    private static let switchingProtocols = 101
    /// RFC 9110 §15.2: interim responses precede the final one.
    private static let informational = 100...199
    /// Framing bytes tolerated on top of the body (chunk-size lines, trailers) before the response is refused.
    static let framingAllowance = 16 * 1024

    private let requestMethod: HTTPMethod
    private let bodyLimit: Int
    private var state = State.head
    private var buffer: [UInt8] = []
    private var body: [UInt8] = []
    private var chunked = ChunkedBodyScanner()
    private var bodyBytesSeen = 0
    /// Whether any byte of a response arrived: a reused connection closed before that is merely stale.
    private(set) var receivedAnything = false

    init(requestMethod: HTTPMethod, bodyLimit: Int = ProviderAnswerLimits.maximumBodySize) {
        self.requestMethod = requestMethod
        self.bodyLimit = bodyLimit
    }

    mutating func receive(_ bytes: [UInt8]) -> Progress {
        if case .done = state { return .needMore }
        if !bytes.isEmpty { receivedAnything = true }
        buffer += bytes
        return advance(atEnd: false)
    }

    /// The server closed the connection.
    mutating func receiveEnd() -> Progress {
        if case .done = state { return .needMore }
        return advance(atEnd: true)
    }

    private mutating func advance(atEnd: Bool) -> Progress {
        while true {
            switch state {
            case .done:
                return .needMore
            case .head:
                let parsed = buffer.withUnsafeBytes {
                    ResponseHeadParser.parse($0, requestMethod: requestMethod, limits: HTTPHeadLimits())
                }
                switch parsed {
                case .incomplete:
                    return atEnd ? finish(.failed(.connectionClosed(closedReason))) : .needMore
                case .invalid(let error):
                    return finish(.failed(.protocolError(error.reason)))
                case .complete(let head):
                    if head.status == Self.switchingProtocols {
                        return finish(.failed(.protocolError("the server switched protocols")))
                    }
                    let contentType = Self.contentType(of: head, in: buffer)
                    buffer.removeFirst(head.headLength)
                    if Self.informational.contains(head.status) { continue }
                    if case .contentLength(let length) = head.framing, length > UInt64(bodyLimit) {
                        return finish(.failed(.bodyTooLarge(limit: bodyLimit)))
                    }
                    state = .body(framing: head.framing, status: head.status, contentType: contentType,
                                  keepAlive: head.keepAlive)
                }
            case .body(let framing, let status, let contentType, let keepAlive):
                let response = { (body: [UInt8]) in
                    HTTPDNSResponse(status: status, contentType: contentType, body: body, protocolName: HTTPDNSResponse.http11)
                }
                switch framing {
                case .none:
                    return finish(.complete(response([]), reusable: keepAlive && buffer.isEmpty))
                case .contentLength(let length):
                    let length = Int(length)
                    if buffer.count >= length {
                        let reusable = keepAlive && buffer.count == length
                        return finish(.complete(response(Array(buffer.prefix(length))), reusable: reusable))
                    }
                    return atEnd ? finish(.failed(.connectionClosed(closedReason))) : .needMore
                case .untilClose:
                    if buffer.count > bodyLimit { return finish(.failed(.bodyTooLarge(limit: bodyLimit))) }
                    return atEnd ? finish(.complete(response(buffer), reusable: false)) : .needMore
                case .chunked:
                    return advanceChunked(atEnd: atEnd, response: response, keepAlive: keepAlive)
                }
            }
        }
    }

    /// Moves chunk data into `body` and lets the scanner consume the framing around it.
    private mutating func advanceChunked(atEnd: Bool, response: ([UInt8]) -> HTTPDNSResponse, keepAlive: Bool) -> Progress {
        // Taken out while the walk appends to it, so that appending never copies what was collected so far.
        var collected: [UInt8] = []
        swap(&collected, &body)
        let (walked, end) = buffer.withUnsafeBytes { bytes in
            chunked.walk(bytes) { range in collected += bytes[range] }
        }
        swap(&collected, &body)
        buffer.removeFirst(walked)
        bodyBytesSeen += walked
        if body.count > bodyLimit { return finish(.failed(.bodyTooLarge(limit: bodyLimit))) }
        switch end {
        case .needMore:
            if bodyBytesSeen > bodyLimit + Self.framingAllowance {
                return finish(.failed(.protocolError("chunked framing larger than \(Self.framingAllowance) bytes")))
            }
            return atEnd ? finish(.failed(.connectionClosed(closedReason))) : .needMore
        case .finished:
            return finish(.complete(response(body), reusable: keepAlive && buffer.isEmpty))
        case .invalid(let error):
            return finish(.failed(.protocolError(error.reason)))
        }
    }

    private var closedReason: String {
        switch state {
        case .head: return receivedAnything ? "the server closed the connection inside the response head"
                                            : "the server closed the connection without answering"
        default: return "the server closed the connection before the body was complete"
        }
    }

    private mutating func finish(_ progress: Progress) -> Progress {
        state = .done
        return progress
    }

    /// The Content-Type value of `head`, if present (RFC 9110 §8.3).
    private static func contentType(of head: ResponseHead, in bytes: [UInt8]) -> String? {
        for field in head.fields where String(decoding: bytes[field.name], as: UTF8.self).lowercased() == "content-type" {
            return String(decoding: bytes[field.value], as: UTF8.self)
        }
        return nil
    }
}
