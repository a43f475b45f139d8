import CEvent
import Glibc
import IPDirectCore

/// One TCP connection to an origin, owned by a session while in use and by the pool while idle.
final class UpstreamConnection {
    let bev: OpaquePointer
    let key: String
    let address: SocketAddress
    /// True once the connection has carried a complete exchange and been pooled.
    var reused = false
    /// The pool holding this connection while it is idle.
    weak var parkedIn: UpstreamPool?
    private var closed = false

    init(bev: OpaquePointer, key: String, address: SocketAddress) {
        self.bev = bev
        self.key = key
        self.address = address
    }

    deinit { close() }

    var input: OpaquePointer { bufferevent_get_input(bev) }
    var output: OpaquePointer { bufferevent_get_output(bev) }
    var fd: Int32 { bufferevent_getfd(bev) }

    /// A pooled connection may have been closed by the server while the loop was busy: peek for EOF or
    /// stray bytes before trusting it with a request.
    var looksReusable: Bool {
        guard evbuffer_get_length(input) == 0 else { return false }
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Frees the bufferevent and socket; idempotent. Callbacks are cleared first so none can fire later.
    func close() {
        guard !closed else { return }
        closed = true
        bufferevent_setcb(bev, nil, nil, nil, nil)
        bufferevent_free(bev)
    }
}
