import IPDirectCore

/// The listening sockets each worker watches: for every address, one socket per worker, all bound with
/// SO_REUSEPORT, so the kernel spreads new connections over the workers by a hash of their addresses.
///
/// Why not one socket shared by every worker: every loop is woken for each new connection and the first
/// to run takes it, so a client that opens many connections at once (a browser, a load generator's 64)
/// lands on whichever loop happens to run first, often mostly on one, while the other loop idles. The crowded loop serves its connections one after the
/// other (the tail latency grows) and overflows its upstream pool (`upstream_max_idle_per_host` is per
/// worker), so requests open new upstream connections that a balanced spread would have reused.
/// The price: a connection hashed to a loop that is busy waits for that loop, even while another is idle.
enum WorkerListeningSockets {
    /// `sockets[worker]` lists that worker's sockets, one per address in `addresses`' order. One worker
    /// gets one plain socket per address, as there is nothing to spread.
    static func bind(_ addresses: [SocketAddress], workers: Int) throws(StartupError) -> [[ListeningSocket]] {
        guard workers > 1 else {
            var sockets: [ListeningSocket] = []
            for address in addresses {
                sockets.append(try ListeningSocket(address: address))
            }
            return [sockets]
        }
        var sockets = [[ListeningSocket]](repeating: [], count: workers)
        for address in addresses {
            // Port 0 is resolved once, so every worker's socket joins the same port.
            let free = try ListeningSocket.probe(address)
            for worker in 0..<workers {
                sockets[worker].append(try ListeningSocket(address: free, reusePort: true))
            }
        }
        return sockets
    }

    /// Sockets the service manager handed over (socket activation) were bound by it, without
    /// SO_REUSEPORT: every worker watches the same ones.
    static func shared(_ handed: [ListeningSocket], workers: Int) -> [[ListeningSocket]] {
        [[ListeningSocket]](repeating: handed, count: workers)
    }
}
