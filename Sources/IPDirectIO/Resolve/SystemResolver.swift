import CEvent
import Glibc
import IPDirectCore

/// The "system" source: asynchronous lookups through libevent's evdns, so a slow resolver never
/// blocks the loop. Uses /etc/resolv.conf and /etc/hosts, or the configured nameservers.
final class SystemResolver {
    let dnsBase: OpaquePointer
    private let settings: ResolverSettings
    static let resolvConfPath = "/etc/resolv.conf"

    init(base: EventBase, settings: ResolverSettings) throws(StartupError) {
        // No flags: nothing is read implicitly, so tests can point at a loopback nameserver only.
        guard let dnsBase = evdns_base_new(base.raw, 0) else { throw StartupError("evdns_base_new failed") }
        self.dnsBase = dnsBase
        self.settings = settings
        if settings.systemNameservers.isEmpty {
            readResolvConf(DNS_OPTION_SEARCH | DNS_OPTION_NAMESERVERS | DNS_OPTION_MISC | DNS_OPTION_HOSTSFILE)
        } else {
            for server in settings.systemNameservers {
                let added = server.withSockaddr { evdns_base_nameserver_sockaddr_add(dnsBase, $0, $1, 0) }
                if added != 0 { throw StartupError("cannot use nameserver \(server)") }
            }
            evdns_base_load_hosts(dnsBase, "/etc/hosts")
        }
        applyTimeouts()
    }

    /// /etc/resolv.conf changed: its nameservers and search list replace those read before. Lookups in flight
    /// wait meanwhile and go to the new nameservers (libevent's way of re-reading the file). The hosts file
    /// is not read again: evdns would add its entries twice.
    func rereadResolvConf() {
        guard settings.systemNameservers.isEmpty else { return }
        evdns_base_clear_nameservers_and_suspend(dnsBase)
        readResolvConf(DNS_OPTION_SEARCH | DNS_OPTION_NAMESERVERS | DNS_OPTION_MISC)
        applyTimeouts()
        evdns_base_resume(dnsBase)
    }

    private func readResolvConf(_ options: Int32) {
        let status = evdns_base_resolv_conf_parse(dnsBase, options, Self.resolvConfPath)
        if status != 0 {
            Logger.warning("event=resolv_conf_unreadable status=\(status) path=\(Self.resolvConfPath)")
        }
    }

    /// After resolv.conf, whose `options timeout:` would otherwise win over `system_timeout`.
    private func applyTimeouts() {
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
