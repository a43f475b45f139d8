import CEvent
import Glibc
import IPDirectCore

/// `GET /proxy.pac` in origin-form on the proxy listener: the proxy auto-config file pointing at the
/// listener the request came in on, so a desktop's "automatic proxy configuration URL" can name ipdirect.
extension ClientSession {
    /// GET or HEAD of `/proxy.pac`, with or without a query.
    static func asksForPAC(_ method: HTTPMethod, _ target: UnsafeRawBufferPointer) -> Bool {
        guard method == .get || method == .head else { return false }
        let pathEnd = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        return target[..<pathEnd].elementsEqual(PACFile.path.utf8)
    }

    /// Answers the current exchange with the PAC file. The address is the socket's local one, which is
    /// what the client reached (a listener on 0.0.0.0 is named by the address the client used).
    func servePAC(headOnly: Bool) {
        guard var current = exchange else { return }
        guard let listener = localAddress() else {
            return respond(with: ProxyError(status: 500, kind: .proxyInternalError,
                                            details: "cannot tell which address this connection arrived on"))
        }
        let file = PACFile(proxy: listener, direct: configuration.pac.direct)
        let persistence = ResponsePersistence.lengthDelimited(
            clientVersion: current.clientVersion, clientKeepAlive: current.keepAlive,
            mustClose: !current.requestBody.isComplete || clientHasNoMoreRequests)
        current.status = 200
        current.closeClientAfter = persistence.closes
        exchange = current
        sendToClient(AdminResponse(status: 200, contentType: PACFile.contentType, body: file.script)
            .bytes(persistence: persistence, headOnly: headOnly))
        finishExchange()
    }

    private func localAddress() -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(bufferevent_getfd(client), address, &length) == 0 ? SocketAddress(sockaddr: address) : nil
            }
        }
        return found
    }
}
