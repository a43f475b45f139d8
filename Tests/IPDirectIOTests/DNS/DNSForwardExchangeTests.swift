import Glibc
import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// A forwarded query on a real loop and loopback sockets: only the server it was sent to can answer it (the
/// socket is connected), and only with the query's ID; the client's ID comes back in the answer.
@Suite struct DNSForwardExchangeTests {
    /// A UDP socket on 127.0.0.1 and a free port.
    final class LoopbackDatagram {
        let fd: Int32
        let address: SocketAddress

        init() {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            let bound = SocketAddress("127.0.0.1:0")!.withSockaddr { bind(fd, $0, $1) }
            precondition(bound == 0, "bind failed")
            self.fd = fd
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            address = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    getsockname(fd, raw, &length)
                    return SocketAddress(sockaddr: raw)!
                }
            }
        }

        deinit { close(fd) }

        /// The next datagram (waiting for it) and where it came from.
        func receive() -> (bytes: [UInt8], from: SocketAddress) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let (count, from) = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    let count = buffer.withUnsafeMutableBytes { recvfrom(fd, $0.baseAddress, $0.count, 0, raw, &length) }
                    return (count, SocketAddress(sockaddr: raw)!)
                }
            }
            return (Array(buffer[0..<max(count, 0)]), from)
        }

        func send(_ bytes: [UInt8], to destination: SocketAddress) {
            _ = destination.withSockaddr { address, length in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, address, length) }
            }
        }
    }

    /// An A query for printer.lan with ID 0x1234, as a client sends it.
    static let clientQuery: DNSQueryMessage = {
        let wire: [UInt8] = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + DNSName("printer.lan")!.wire + [0, 1, 0, 1]
        guard case .query(let query) = DNSQueryMessage.intake(wire) else { fatalError("unreadable test query") }
        return query
    }()

    /// The answer to `query` (as ipdirect sent it: header, question, OPT) with one A record, under `id`.
    static func answer(to query: [UInt8], id: UInt16, address: [UInt8]) -> [UInt8] {
        let question = Array(query[12..<(query.count - 11)])
        return [UInt8(id >> 8), UInt8(id & 0xFF), 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0] + question
            + [0xC0, 0x0C, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4] + address
    }

    /// Forwards the client's query to `server`, lets `reply` answer what the server received (the query
    /// and the address it came from), and runs the loop until the exchange ends.
    func forward(to server: LoopbackDatagram,
                 reply: (_ query: [UInt8], _ id: UInt16, _ client: SocketAddress) -> Void) -> (DNSForwardAttempts.Action?, DNSForwardExchange) {
        let base = EventBase()
        let attempts = DNSForwardAttempts(relayed: DNSRelayedQuery(client: Self.clientQuery, upstreamID: .random(in: .min ... .max)),
                                          servers: [server.address], https: .stripHints)
        var outcome: DNSForwardAttempts.Action?
        let exchange = DNSForwardExchange(base: base, attempts: attempts) { outcome = $0 }
        exchange.start()
        let (query, client) = server.receive()
        reply(query, UInt16(query[0]) << 8 | UInt16(query[1]), client)
        LoopDriver.run(base) { outcome != nil }
        return (outcome, exchange)
    }

    @Test func aReplyFromAnotherAddressIsNeverTakenButTheServersIs() {
        let server = LoopbackDatagram()
        let spoofer = LoopbackDatagram()
        let (outcome, _) = forward(to: server) { query, id, client in
            spoofer.send(Self.answer(to: query, id: id, address: [6, 6, 6, 6]), to: client)
            server.send(Self.answer(to: query, id: id, address: [192, 0, 2, 50]), to: client)
        }
        guard case .answer(let response, _, _) = outcome else {
            Issue.record("no answer: \(String(describing: outcome))")
            return
        }
        #expect(response.id == 0x1234)
        #expect(response.answers.map(\.data) == [[192, 0, 2, 50]])
    }

    @Test func aReplyUnderAnotherIDIsIgnoredAndTheRightOneTaken() {
        let server = LoopbackDatagram()
        let (outcome, exchange) = forward(to: server) { query, id, client in
            server.send(Self.answer(to: query, id: id &+ 1, address: [6, 6, 6, 6]), to: client)
            server.send(Self.answer(to: query, id: id, address: [192, 0, 2, 50]), to: client)
        }
        guard case .answer(let response, _, _) = outcome else {
            Issue.record("no answer: \(String(describing: outcome))")
            return
        }
        #expect(response.answers.map(\.data) == [[192, 0, 2, 50]])
        #expect(exchange.isFinished)
    }
}
