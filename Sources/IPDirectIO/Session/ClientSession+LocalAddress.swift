import CEvent
import Glibc
import IPDirectCore

/// The local address a client reached, which the PAC file names as the proxy.
extension ClientSession {
    func localAddress() -> SocketAddress? {
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
