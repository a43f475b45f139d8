import CEvent
import Glibc
import IPDirectCore

/// Sends state datagrams to the service manager's `NOTIFY_SOCKET` (the sd_notify(3) protocol, without
/// libsystemd). Without a notify socket every call does nothing, so the daemon runs the same by hand.
/// Only the main thread sends.
final class ServiceNotifier {
    private let fd: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    private let target: String

    /// Nil when `socket` is nil, or not a name a unix socket can have (then the reason is logged once).
    init?(socket: String?) {
        guard let socket else { return nil }
        var path = Array(socket.utf8)
        if path.first == UInt8(ascii: "@") {
            // An abstract socket: its name starts with a NUL byte and is not NUL-terminated.
            path[0] = 0
        } else if path.first != UInt8(ascii: "/") {
            Logger.warning("event=notify_socket_unusable socket=\(socket) reason=\"not an absolute path or @name\"")
            return nil
        }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs room for its terminating NUL; an abstract name does not have one.
        guard path.count + (path[0] == 0 ? 0 : 1) <= capacity else {
            Logger.warning("event=notify_socket_unusable socket=\(socket) reason=\"longer than \(capacity - 1) bytes\"")
            return nil
        }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            Logger.warning("event=notify_socket_unusable socket=\(socket) reason=\"\(String(cString: strerror(errno)))\"")
            return nil
        }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        addressLength = socklen_t(pathOffset + path.count)
        self.fd = fd
        target = socket
    }

    deinit { Glibc.close(fd) }

    /// Best effort: a service manager that went away must not stop the daemon.
    func send(_ state: ServiceState) {
        var bytes = Array(state.message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeMutableBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength) }
            }
        }
        if sent < 0 {
            Logger.warning("event=notify_failed socket=\(target) state=\(state) reason=\"\(String(cString: strerror(errno)))\"")
        } else if state != .watchdog {
            Logger.debug("event=notified socket=\(target) state=\(state)")
        }
    }
}
