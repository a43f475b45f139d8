import CEvent
import Glibc
import IPDirectCore

/// The "system" source: asynchronous lookups through libevent's evdns, so a slow resolver never
/// blocks the loop. Uses /etc/resolv.conf and /etc/hosts, or the configured nameservers.
final class SystemResolver {
    let dnsBase: OpaquePointer

    init(base: EventBase, settings: ResolverSettings) throws(StartupError) {
        // No flags: nothing is read implicitly, so tests can point at a loopback nameserver only.
        guard let dnsBase = evdns_base_new(base.raw, 0) else { throw StartupError("evdns_base_new failed") }
        self.dnsBase = dnsBase
        if settings.systemNameservers.isEmpty {
            let status = evdns_base_resolv_conf_parse(
                dnsBase, DNS_OPTION_SEARCH | DNS_OPTION_NAMESERVERS | DNS_OPTION_MISC | DNS_OPTION_HOSTSFILE, "/etc/resolv.conf")
            if status != 0 {
                Logger.warning("event=resolv_conf_unreadable status=\(status) path=/etc/resolv.conf")
            }
        } else {
            for server in settings.systemNameservers {
                let added = server.withSockaddr { evdns_base_nameserver_sockaddr_add(dnsBase, $0, $1, 0) }
                if added != 0 { throw StartupError("cannot use nameserver \(server)") }
            }
            evdns_base_load_hosts(dnsBase, "/etc/hosts")
        }
        let seconds = String(Double(settings.systemTimeoutMs) / 1000)
        evdns_base_set_option(dnsBase, "timeout:", seconds)
        evdns_base_set_option(dnsBase, "attempts:", "2")
    }

    deinit {
        evdns_base_free(dnsBase, 1)
    }

    /// Looks up A and AAAA records; `completion` runs later on the loop thread, unless cancelled.
    func lookup(_ host: String, completion: @escaping (Result<[IPAddress], ResolveFailure>) -> Void) -> ResolveHandle {
        let request = SystemLookup(host: host, completion: completion)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        // Retained until libevent calls back, which it always does exactly once (with CANCEL if cancelled).
        let context = Unmanaged.passRetained(request).toOpaque()
        request.pending = evdns_getaddrinfo(dnsBase, host, nil, &hints, SystemLookup.callback, context)
        return request
    }
}

/// One in-flight evdns lookup.
final class SystemLookup: ResolveHandle {
    let host: String
    var completion: ((Result<[IPAddress], ResolveFailure>) -> Void)?
    var pending: OpaquePointer?
    private(set) var finished = false
    var isFinished: Bool { finished }

    init(host: String, completion: @escaping (Result<[IPAddress], ResolveFailure>) -> Void) {
        self.host = host
        self.completion = completion
    }

    func cancel() {
        completion = nil
        if let pending, !finished {
            self.pending = nil
            evdns_getaddrinfo_cancel(pending)
        }
    }

    static let callback: evdns_getaddrinfo_cb = { result, info, context in
        let request = Unmanaged<SystemLookup>.fromOpaque(context!).takeRetainedValue()
        request.finished = true
        request.pending = nil
        defer { if let info { evutil_freeaddrinfo(info) } }
        guard let completion = request.completion else { return }
        request.completion = nil
        if result != 0 {
            completion(.failure(ResolveFailure(host: request.host, reason: SystemLookup.reason(result))))
            return
        }
        var addresses: [IPAddress] = []
        var node = info
        while let current = node {
            if let sockaddr = current.pointee.ai_addr, let address = SocketAddress(sockaddr: sockaddr),
               !addresses.contains(address.ip) {
                addresses.append(address.ip)
            }
            node = current.pointee.ai_next
        }
        if addresses.isEmpty {
            completion(.failure(ResolveFailure(host: request.host, reason: .notFound)))
        } else {
            completion(.success(addresses))
        }
    }

    private static func reason(_ code: Int32) -> ResolveFailure.Reason {
        switch code {
        case EVUTIL_EAI_NONAME, EVUTIL_EAI_NODATA: return .notFound
        case EVUTIL_EAI_AGAIN: return .timeout
        default: return .failed(String(cString: evutil_gai_strerror(code)))
        }
    }
}
