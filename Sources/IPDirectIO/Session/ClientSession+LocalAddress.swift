import CEvent
import Glibc
import IPDirectCore

/// The local address a client reached, which the PAC file names as the proxy.
extension ClientSession {
    func localAddress() -> SocketAddress? {
        SocketAddress(localOf: bufferevent_getfd(client))
    }
}
