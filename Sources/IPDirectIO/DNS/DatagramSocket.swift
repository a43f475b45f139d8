import CEvent
import Glibc
import IPDirectCore

/// A bound UDP socket of the DNS listener: one per worker for each address (SO_REUSEPORT, so the kernel
/// spreads queries over the loops), or one handed over by the service manager and shared.
final class DatagramSocket {
    private(set) var fd: Int32
    let address: SocketAddress

    init(address: SocketAddress, reusePort: Bool) throws(StartupError) {
        fd = try DatagramSocket.bound(address, reusePort: reusePort)
        self.address = address
    }

    /// Takes over a socket that is already bound.
    init(adopting fd: Int32, address: SocketAddress) {
        self.fd = fd
        self.address = address
    }

    /// Fails while any other socket is bound to `address` (with SO_REUSEPORT or not), so a second instance
    /// cannot join this one's group of sockets and take a share of its queries.
    static func probe(_ address: SocketAddress) throws(StartupError) {
        Glibc.close(try bound(address, reusePort: false))
    }

    private static func bound(_ address: SocketAddress, reusePort: Bool) throws(StartupError) -> Int32 {
        // No SO_REUSEADDR: for UDP it would let another socket bind the same address and share its datagrams.
        try SocketBinding.bound(address, type: SOCK_DGRAM, reuseAddress: false, reusePort: reusePort)
    }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}

/// The DNS listener's sockets: for every `[dns] listen` address a UDP and a TCP socket per worker, or the
/// ones the service manager handed over under the name `dns` (shared by every worker).
struct DNSListenerSockets {
    var datagram: [DatagramSocket] = []
    var stream: [ListeningSocket] = []

    /// The name a socket unit gives the DNS sockets (`FileDescriptorName=dns`).
    static let handedName = "dns"

    static func bind(_ addresses: [SocketAddress], workers: Int) throws(StartupError) -> [DNSListenerSockets] {
        var sockets = [DNSListenerSockets](repeating: DNSListenerSockets(), count: workers)
        for address in addresses {
            // One port for TCP and UDP, chosen once where the file says 0.
            let free = try ListeningSocket.probe(address)
            try DatagramSocket.probe(free)
            for worker in 0..<workers {
                sockets[worker].datagram.append(try DatagramSocket(address: free, reusePort: workers > 1))
                sockets[worker].stream.append(try ListeningSocket(address: free, reusePort: workers > 1))
            }
        }
        return sockets
    }

    /// The addresses served, TCP and UDP alike.
    var addresses: [SocketAddress] { stream.map(\.boundAddress) }
}
