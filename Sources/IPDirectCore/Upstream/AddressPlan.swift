/// The order to race a host's addresses in, and which pooled connections may carry its next request.
public struct AddressPlan: Sendable, Equatable {
    /// Addresses to connect to, best first, families interleaved (RFC 8305 §4), quarantined ones last.
    public var order: [SocketAddress]
    /// Addresses an idle pooled connection may be reused for, most preferred first; connections to any
    /// other address (no longer in the answer, quarantined, or far slower than the best) are closed.
    public var reusable: [SocketAddress]
    /// Addresses whose idle pooled connections may stay in the pool; the rest are closed when seen.
    public var keepsIdle: [SocketAddress]

    public init(order: [SocketAddress], reusable: [SocketAddress], keepsIdle: [SocketAddress]? = nil) {
        self.order = order
        self.reusable = reusable
        self.keepsIdle = keepsIdle ?? reusable
    }

    /// 1-based position of `address` in `order`, for the access log.
    public func rank(of address: SocketAddress) -> Int? {
        order.firstIndex(of: address).map { $0 + 1 }
    }
}
