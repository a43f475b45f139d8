// Temporary declarations until the HTTP and Config modules land.
public struct HTTPHeadLimits: Sendable {
    public var maxHeadBytes: Int
    public var maxFieldCount: Int
    public init(maxHeadBytes: Int = 32 * 1024, maxFieldCount: Int = 128) { self.maxHeadBytes = maxHeadBytes; self.maxFieldCount = maxFieldCount }
}
public enum HTTPVersion: Sendable, Equatable { case http10, http11 }
public enum HTTPMethod: Sendable, Equatable { case get, head, post, put, delete, connect, options, trace, patch, other }
public struct HeaderField: Sendable, Equatable { public var name: Range<Int>; public var value: Range<Int> }
public enum URIScheme: Sendable, Equatable { case http, https }
public enum RequestTarget: Sendable, Equatable {
    case origin(Range<Int>)
    case absolute(scheme: URIScheme, host: String, port: UInt16, authority: Range<Int>, pathAndQuery: Range<Int>?)
    case authority(host: String, port: UInt16)
    case asterisk
}
public enum RequestBodyFraming: Sendable, Equatable { case none, contentLength(UInt64), chunked }
public struct RequestHead: Sendable {
    public var method: HTTPMethod
    public var methodBytes: Range<Int>
    public var target: RequestTarget
    public var version: HTTPVersion
    public var fields: [HeaderField]
    public var framing: RequestBodyFraming
    public var keepAlive: Bool
    public var connectionTokens: [String]
    public var expectsContinue: Bool
    public var upgradeRequested: Bool
    public var headLength: Int
}
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var reason: String
    public var description: String { reason }
}
public enum RequestHeadParseResult: Sendable { case incomplete, complete(RequestHead), invalid(HTTPParseError) }
public enum RequestHeadParser {
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits) -> RequestHeadParseResult { fatalError() }
}
public enum ResponseBodyFraming: Sendable, Equatable { case none, contentLength(UInt64), chunked, untilClose }
public struct ResponseHead: Sendable {
    public var status: Int
    public var version: HTTPVersion
    public var reason: Range<Int>
    public var fields: [HeaderField]
    public var framing: ResponseBodyFraming
    public var keepAlive: Bool
    public var connectionTokens: [String]
    public var headLength: Int
}
public enum ResponseHeadParseResult: Sendable { case incomplete, complete(ResponseHead), invalid(HTTPParseError) }
public enum ResponseHeadParser {
    public static func parse(_ bytes: UnsafeRawBufferPointer, requestMethod: HTTPMethod, limits: HTTPHeadLimits) -> ResponseHeadParseResult { fatalError() }
}
public struct ChunkedBodyScanner: Sendable {
    public init(maxControlBytes: Int = 4096, maxTrailerBytes: Int = 16 * 1024) {}
    public enum Step: Sendable, Equatable { case passData(UInt64), needControl }
    public var step: Step { fatalError() }
    public mutating func didPassData(_ count: UInt64) {}
    public enum ControlResult: Sendable, Equatable { case incomplete, consumed(Int), finished(Int), invalid(HTTPParseError) }
    public mutating func scanControl(_ bytes: UnsafeRawBufferPointer) -> ControlResult { fatalError() }
}
public enum HeadRewriter {
    public static func upstreamRequest(_ head: RequestHead, in bytes: UnsafeRawBufferPointer, hostValue: String,
                                       viaName: String, keepUpgrade: Bool, close: Bool) -> [UInt8] { fatalError() }
    public static func clientResponse(_ head: ResponseHead, in bytes: UnsafeRawBufferPointer, viaName: String,
                                      keepUpgrade: Bool, close: Bool) -> [UInt8] { fatalError() }
}
