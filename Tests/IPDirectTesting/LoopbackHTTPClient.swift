import Glibc

/// One blocking HTTP/1.1 client connection to a loopback listener that runs on a thread of its own (the
/// admin listener): it sends bytes and reads responses with Content-Length bodies. Every wait is bounded,
/// so a listener that never answers fails the test instead of hanging it.
package final class LoopbackHTTPClient {
    /// One response as it came off the wire.
    package struct Response: Sendable, CustomStringConvertible {
        /// The status line without its CRLF: `HTTP/1.1 200 OK`.
        package var statusLine: String
        package var status: Int
        /// Each field line as written, name and value split at the first colon, the value trimmed.
        package var fields: [(name: String, value: String)]
        package var body: String

        /// The value of the first field named `name` (case-insensitive), nil when there is none.
        package func field(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        package var description: String {
            ([statusLine] + fields.map { "\($0.name): \($0.value)" }).joined(separator: "\r\n") + "\r\n\r\n" + body
        }
    }

    /// What a bounded wait for the peer saw.
    package enum Arrival: Sendable, Equatable {
        /// Bytes arrived; they are kept for the next `readResponse`.
        case bytes
        /// The peer closed (FIN) or reset the connection.
        case closed
        /// Neither within the wait.
        case nothing
    }

    /// The listener's address is 127.0.0.1; a client address elsewhere in 127.0.0.0/8 stands for another client.
    package static func address(_ text: String) -> UInt32 {
        var address = in_addr()
        inet_pton(AF_INET, text, &address)
        return UInt32(bigEndian: address.s_addr)
    }

    package let fd: Int32
    /// Bytes received and not yet taken by `readResponse`.
    private var received: [UInt8] = []
    private var peerClosed = false

    /// Connects to 127.0.0.1:`port` from `source` (host byte order), port chosen by the kernel.
    package init(port: UInt16, source: UInt32 = LoopbackPorts.loopback) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(String(cString: strerror(errno)))") }
        // A peer that stops reading cannot block a send for longer than any other wait.
        let limitMillis = LoopDriver.defaultLimitMillis
        var sendLimit = timeval(tv_sec: limitMillis / 1000, tv_usec: suseconds_t(limitMillis % 1000 * 1000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in(port: 0)
        local.sin_addr = in_addr(s_addr: source.bigEndian)
        var remote = sockaddr_in(port: port)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = bound == 0 && withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw FixtureError("connect to port \(port): \(reason)")
        }
    }

    deinit { close(fd) }

    /// Sends all of `text`; false once the peer has closed or reset the connection.
    @discardableResult
    package func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// The next response, head and Content-Length body (none for an answer to HEAD, `toHEAD`); nil when the
    /// connection ends first or no whole response arrives within `limitMillis`.
    package func readResponse(toHEAD: Bool = false, limitMillis: Int = LoopDriver.defaultLimitMillis) -> Response? {
        let deadline = Self.nowMillis() + limitMillis
        let terminator = Array("\r\n\r\n".utf8)
        while true {
            if let headEnd = received.firstRange(of: terminator)?.upperBound,
               let (response, bodyLength) = Self.response(head: received[..<headEnd], body: received[headEnd...],
                                                          bodyExpected: !toHEAD) {
                received.removeFirst(headEnd + bodyLength)
                return response
            }
            guard wait(untilMillis: deadline) == .bytes else { return nil }
        }
    }

    /// Waits up to `millis` for the peer to send bytes or end the connection.
    package func wait(millis: Int) -> Arrival {
        wait(untilMillis: Self.nowMillis() + millis)
    }

    /// Whether the peer ends the connection within `limitMillis` and sent nothing more before it.
    package func closedByPeer(limitMillis: Int = LoopDriver.defaultLimitMillis) -> Bool {
        let deadline = Self.nowMillis() + limitMillis
        while true {
            switch wait(untilMillis: deadline) {
            case .closed: return received.isEmpty
            case .nothing: return false
            case .bytes: continue
            }
        }
    }

    private func wait(untilMillis deadline: Int) -> Arrival {
        if peerClosed { return .closed }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, deadline - Self.nowMillis())))
        guard ready > 0 else { return .nothing }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        let count = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        if count > 0 {
            received += chunk[0..<count]
            return .bytes
        }
        if count < 0, errno == EAGAIN || errno == EINTR { return .nothing }
        peerClosed = true
        return .closed
    }

    /// Parses a head and takes its Content-Length body from `body`, with the body's length in bytes; nil when
    /// the body has not all arrived.
    private static func response(head: ArraySlice<UInt8>, body: ArraySlice<UInt8>, bodyExpected: Bool) -> (Response, Int)? {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n").map(String.init)
        guard let statusLine = lines.first else { return nil }
        let fields = lines.dropFirst().map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1].drop { $0 == " " }) : "")
        }
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var response = Response(statusLine: statusLine, status: status, fields: fields, body: "")
        let length = bodyExpected ? response.field("Content-Length").flatMap { Int($0) } ?? 0 : 0
        guard body.count >= length else { return nil }
        response.body = String(decoding: body.prefix(length), as: UTF8.self)
        return (response, length)
    }

    private static func nowMillis() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int(spec.tv_sec) * 1000 + Int(spec.tv_nsec) / 1_000_000
    }
}
