import CEvent
import Glibc
import IPDirectCore

/// Socket activation (sd_listen_fds(3)): turns the descriptors the service manager passed into
/// listening sockets, after checking each really is a listening TCP socket on an IP address.
enum HandedSockets {
    /// The sockets handed to this process, or none. The LISTEN_* variables are cleared once read, as
    /// sd_listen_fds(unset_environment: 1) does, so no child process mistakes them for its own.
    static func take(_ handed: [ServiceEnvironment.HandedSocket]) throws(StartupError) -> [ListeningSocket] {
        for variable in ServiceEnvironment.listenVariables { unsetenv(variable) }
        var sockets: [ListeningSocket] = []
        for socket in handed {
            let label = socket.name.map { "\(socket.fd) (\($0))" } ?? "\(socket.fd)"
            guard isListeningStream(socket.fd) else {
                throw StartupError("handed descriptor \(label) is not a listening TCP socket")
            }
            guard let address = SocketAddress(localOf: socket.fd) else {
                throw StartupError("handed descriptor \(label) is not bound to an IPv4 or IPv6 address")
            }
            // Workers accept without blocking, and the socket is ours alone from now on.
            _ = fcntl(socket.fd, F_SETFL, fcntl(socket.fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(socket.fd, F_SETFD, FD_CLOEXEC)
            sockets.append(ListeningSocket(adopting: socket.fd, address: address))
        }
        return sockets
    }

    /// The DNS listener's handed sockets (`FileDescriptorName=dns`): datagram sockets bound to an address,
    /// and listening stream sockets.
    static func takeDNS(_ handed: [ServiceEnvironment.HandedSocket]) throws(StartupError) -> DNSListenerSockets {
        for variable in ServiceEnvironment.listenVariables { unsetenv(variable) }
        var sockets = DNSListenerSockets()
        for socket in handed {
            guard let address = SocketAddress(localOf: socket.fd) else {
                throw StartupError("handed descriptor \(socket.fd) (dns) is not bound to an IPv4 or IPv6 address")
            }
            _ = fcntl(socket.fd, F_SETFL, fcntl(socket.fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(socket.fd, F_SETFD, FD_CLOEXEC)
            if isListeningStream(socket.fd) {
                sockets.stream.append(ListeningSocket(adopting: socket.fd, address: address))
            } else if socketType(socket.fd) == Int32(SOCK_DGRAM.rawValue) {
                sockets.datagram.append(DatagramSocket(adopting: socket.fd, address: address))
            } else {
                throw StartupError("handed descriptor \(socket.fd) (dns) is neither a UDP socket nor a listening TCP socket")
            }
        }
        return sockets
    }

    private static func socketType(_ fd: Int32) -> Int32? {
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 ? type : nil
    }

    private static func isListeningStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 && accepting != 0
    }
}
