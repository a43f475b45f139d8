import CEvent
import Glibc
import IPDirectCore

/// A bound, listening TCP socket. Bound once at startup, so "address in use" is reported before any
/// worker starts. Either one per worker for the same address (`WorkerListeningSockets`), or one shared
/// by every worker's listener, or handed over already listening by the service manager (socket
/// activation).
final class ListeningSocket {
    /// Pending connections the kernel may queue per socket (capped by net.core.somaxconn).
    static let backlog: Int32 = 4096

    private(set) var fd: Int32
    let address: SocketAddress

    /// `reusePort`: SO_REUSEPORT, so sockets of this process (and only of this user) can be bound to the
    /// same address, each with its own queue; the kernel hashes every new connection to one of them.
    init(address: SocketAddress, reusePort: Bool = false) throws(StartupError) {
        let fd = try ListeningSocket.bound(address, reusePort: reusePort)
        guard listen(fd, ListeningSocket.backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw StartupError("cannot listen on \(address): \(reason)")
        }
        ListeningSocket.passNoDelayToAccepted(fd)
        self.fd = fd
        self.address = address
    }

    /// Whether `address` is free for a listener of ours, and with which port when it names port 0: binds a
    /// socket without SO_REUSEPORT and closes it again. That bind fails while any other socket listens
    /// there, with SO_REUSEPORT or not, so a second instance on the same address is still refused, where
    /// a group of SO_REUSEPORT sockets alone would let it join and take a share of the clients.
    static func probe(_ address: SocketAddress) throws(StartupError) -> SocketAddress {
        let fd = try bound(address, reusePort: false)
        defer { Glibc.close(fd) }
        return SocketAddress(localOf: fd) ?? address
    }

    /// A socket bound to `address`, not yet listening. SO_REUSEADDR lets a restarted daemon bind while
    /// connections of the old one linger in TIME_WAIT.
    private static func bound(_ address: SocketAddress, reusePort: Bool) throws(StartupError) -> Int32 {
        try SocketBinding.bound(address, type: SOCK_STREAM, reuseAddress: true, reusePort: reusePort)
    }

    /// The address as the kernel bound it: the port it chose where `address` says 0.
    var boundAddress: SocketAddress { SocketAddress(localOf: fd) ?? address }

    /// Takes over a socket that is already bound and listening.
    init(adopting fd: Int32, address: SocketAddress) {
        ListeningSocket.passNoDelayToAccepted(fd)
        self.fd = fd
        self.address = address
    }

    /// Accepted sockets inherit TCP_NODELAY from the listening one (Linux copies it), which saves a
    /// setsockopt per connection.
    private static func passNoDelayToAccepted(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Closes the socket, so new connections to its address are refused; idempotent. Only once no
    /// worker's listener watches it any more.
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
