import Foundation
import Glibc

/// A loopback TCP server for the cases nginx cannot be made to produce: it records each request it
/// reads (head and Content-Length body) and answers with fixed bytes, or never answers at all.
/// One thread per connection; every blocking call ends when `stop()` closes the sockets.
package final class ScriptedHTTPServer: @unchecked Sendable {
    package enum Behaviour: Sendable {
        /// Accept and read, never answer (for timeouts).
        case silent
        /// Answer every request on the connection with `response`; close after `closeAfterMillis` if set.
        case respond(response: [UInt8], closeAfterMillis: Int?)
    }

    /// Bytes read per recv.
    private static let readChunk = 4096
    /// Pending connections the kernel queues.
    private static let backlog: Int32 = 64

    package let port: UInt16
    private let listener: Int32
    private let behaviour: Behaviour
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var requests: [[UInt8]] = []
    private var stopped = false

    package init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        listener = try LoopbackPorts.bound(port: 0)
        port = try LoopbackPorts.localPort(listener)
        guard listen(listener, ScriptedHTTPServer.backlog) == 0 else { throw FixtureError("listen failed") }
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// Every request read so far, head and body, in arrival order.
    package var receivedRequests: [[UInt8]] { lock.withLock { requests } }
    /// Connections accepted so far.
    package var acceptedCount: Int { lock.withLock { connections.count } }

    package func stop() {
        let open: [Int32] = lock.withLock {
            guard !stopped else { return [] }
            stopped = true
            return connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            let accepted = lock.withLock {
                if stopped { return false }
                connections.append(fd)
                return true
            }
            guard accepted else {
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in serve(fd) }
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        var pending: [UInt8] = []
        while let request = readRequest(fd, &pending) {
            lock.withLock { requests.append(request) }
            guard case .respond(let response, let closeAfter) = behaviour else { continue }
            _ = response.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if let closeAfter {
                usleep(useconds_t(closeAfter * 1000))
                return
            }
        }
    }

    /// One request (head up to CRLF CRLF plus a Content-Length body), or nil at EOF.
    private func readRequest(_ fd: Int32, _ pending: inout [UInt8]) -> [UInt8]? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let headEnd = pending.firstRange(of: terminator)?.upperBound {
                let head = String(decoding: pending[..<headEnd], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if pending.count >= headEnd + length {
                    let request = Array(pending[..<(headEnd + length)])
                    pending.removeFirst(headEnd + length)
                    return request
                }
            }
            var buffer = [UInt8](repeating: 0, count: ScriptedHTTPServer.readChunk)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }
}
