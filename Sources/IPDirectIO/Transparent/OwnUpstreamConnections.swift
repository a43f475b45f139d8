import IPDirectCore
import Synchronization

/// The connections ipdirect itself has open, each by its local and remote address, while transparent mode is
/// on: a redirected connection that is one of them (its peer is the local end, its original destination the
/// remote end) is ipdirect's own traffic come back through rules that do not exempt it. A pair of addresses
/// names one open connection at a time, so the check has no false positives as long as each entry leaves when
/// its connection closes: a later connection that happens to reuse the port is someone else's.
final class OwnUpstreamConnections: Sendable {
    /// The daemon's registry while transparent mode is on, nil otherwise: every connect of the process records
    /// itself here (`BufferedSocket.connect(to:)`), whichever thread or subsystem makes it (proxy sessions,
    /// HTTPDNS, probes), since a loop through the rules can start from any of them. Set before any loop thread
    /// starts.
    nonisolated(unsafe) static var recording: OwnUpstreamConnections?

    private let open = Mutex([SocketAddress: SocketAddress]())

    /// A connect from `local` to `remote` has begun.
    func opened(local: SocketAddress, remote: SocketAddress) {
        open.withLock { $0[local.unmapped] = remote.unmapped }
    }

    /// The connection from `local` is closed.
    func closed(local: SocketAddress) {
        _ = open.withLock { $0.removeValue(forKey: local.unmapped) }
    }

    /// Whether a connection from `peer` to `original` is one ipdirect has open.
    func contains(peer: SocketAddress, original: SocketAddress) -> Bool {
        open.withLock { $0[peer.unmapped] } == original.unmapped
    }

    /// Connections recorded open now.
    var count: Int { open.withLock { $0.count } }
}

extension SocketAddress {
    /// The same endpoint with an IPv4-mapped IPv6 address as the IPv4 address it is.
    var unmapped: SocketAddress { SocketAddress(ip: ip.unmapped, port: port) }
}
