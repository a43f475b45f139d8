import CEvent
import Glibc
import IPDirectCore

/// Watches the kernel's routing netlink groups for address, link and route changes (what the mobile
/// HTTPDNS SDKs treat as a network switch) and reports them once they settle: a burst of messages
/// (one address added brings an address and a local route) becomes one call, and only when the
/// machine's addresses or default routes really differ (`NetworkFingerprint`).
final class NetworkChangeMonitor {
    private let fd: Int32
    private var event: OpaquePointer?
    private let settle: Timer
    private var pendingReason = ""
    private let changed: (String) -> Void
    private var fingerprint: NetworkFingerprint

    /// Messages arriving within this of each other count as one change.
    static let settleMillis = 300
    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE (linux/rtnetlink.h).
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
    static let readBufferBytes = 16384
    /// linux/netlink.h, which Glibc's module does not bring in.
    static let netlinkRoute: Int32 = 0

    /// struct sockaddr_nl { u16 nl_family; u16 nl_pad; u32 nl_pid; u32 nl_groups; }, host byte order.
    static func netlinkAddress(groups: UInt32) -> [UInt8] {
        let family = UInt16(AF_NETLINK)
        var bytes = [UInt8(family & 0xFF), UInt8(family >> 8), 0, 0, 0, 0, 0, 0]
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: groups >> UInt32(shift))) }
        return bytes
    }

    /// nil (and a log line) when the netlink socket cannot be opened, e.g. in a sandbox without it:
    /// the proxy then works without noticing network changes.
    init?(base: EventBase, changed: @escaping (String) -> Void) {
        let socketFD = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              NetworkChangeMonitor.netlinkRoute)
        guard socketFD >= 0 else {
            Logger.warning("event=network_watch_unavailable reason=\"\(String(cString: strerror(errno)))\"")
            return nil
        }
        let local = NetworkChangeMonitor.netlinkAddress(groups: NetworkChangeMonitor.groups)
        let bound = local.withUnsafeBytes {
            bind(socketFD, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard bound == 0 else {
            Logger.warning("event=network_watch_unavailable reason=\"\(String(cString: strerror(errno)))\"")
            Glibc.close(socketFD)
            return nil
        }
        fd = socketFD
        self.changed = changed
        fingerprint = NetworkChangeMonitor.currentFingerprint()
        settle = Timer(base: base)
        settle.action = { [unowned self] in settled() }
        event = event_new(base.raw, fd, Int16(EV_READ | EV_PERSIST), NetworkChangeMonitor.readable,
                          Unmanaged.passUnretained(self).toOpaque())
        event_add(event, nil)
    }

    deinit {
        if let event { event_free(event) }
        settle.cancel()
        Glibc.close(fd)
    }

    private static let readable: event_callback_fn = { _, _, context in
        Unmanaged<NetworkChangeMonitor>.fromOpaque(context!).takeUnretainedValue().didRead()
    }

    private func settled() {
        let reason = pendingReason
        pendingReason = ""
        let now = NetworkChangeMonitor.currentFingerprint()
        guard now != fingerprint else {
            Logger.debug("event=network_unchanged messages=\(reason)")
            return
        }
        fingerprint = now
        changed(reason)
    }

    private func didRead() {
        var buffer = [UInt8](repeating: 0, count: NetworkChangeMonitor.readBufferBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && errno == ENOBUFS {
                // The kernel dropped messages: something changed that we did not see.
                note("overflow")
                continue
            }
            guard count > 0 else { break }
            for kind in NetworkChangeMonitor.messageKinds(buffer[0..<count]) { note(kind) }
        }
        if !pendingReason.isEmpty { settle.schedule(afterMillis: NetworkChangeMonitor.settleMillis) }
    }

    /// Adds `kind` to the comma-separated `pendingReason` unless it is there already.
    private func note(_ kind: String) {
        guard !pendingReason.split(separator: ",").contains(where: { $0 == kind }) else { return }
        pendingReason += pendingReason.isEmpty ? kind : "," + kind
    }

    /// The machine's addresses (getifaddrs) and default routes (/proc/net/route, /proc/net/ipv6_route).
    static func currentFingerprint() -> NetworkFingerprint {
        let addresses = InterfaceAddresses.current().map { "\($0.interface) \($0.ip)" }
        return NetworkFingerprint(addresses: addresses, ipv4RouteTable: readSmallFile("/proc/net/route"),
                                  ipv6RouteTable: readSmallFile("/proc/net/ipv6_route"))
    }

    /// Route tables of a desktop or server are a few KiB; a router's full table is not read past this.
    static let routeTableLimit = 1 << 20

    private static func readSmallFile(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { Glibc.close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: readBufferBytes)
        while bytes.count < routeTableLimit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The kinds of the netlink messages in one read (struct nlmsghdr: u32 length, u16 type, ...).
    static func messageKinds(_ bytes: ArraySlice<UInt8>) -> [String] {
        var kinds: [String] = []
        var offset = bytes.startIndex
        let headerBytes = 16
        while bytes.endIndex - offset >= headerBytes {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            let type = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            switch type {
            case 16, 17: kinds.append("link")          // RTM_NEWLINK, RTM_DELLINK
            case 20, 21: kinds.append("address")       // RTM_NEWADDR, RTM_DELADDR
            case 24, 25: kinds.append("route")         // RTM_NEWROUTE, RTM_DELROUTE
            default: break
            }
            guard length >= headerBytes else { break }
            offset += (length + 3) & ~3
        }
        return kinds
    }
}
