import CEvent
import Glibc
import IPDirectCore

/// Datagrams moved with one recvmmsg(2) or sendmmsg(2): `count` buffers of `size` octets, each with its
/// peer's address and the headers the calls fill in, allocated once.
final class DatagramBatch {
    let count: Int
    let size: Int
    private let headers: UnsafeMutablePointer<ipd_mmsghdr>
    private let vectors: UnsafeMutablePointer<iovec>
    private let peers: UnsafeMutablePointer<sockaddr_storage>
    private let storage: UnsafeMutableRawPointer

    init(count: Int, size: Int) {
        self.count = count
        self.size = size
        headers = .allocate(capacity: count)
        headers.initialize(repeating: ipd_mmsghdr(), count: count)
        vectors = .allocate(capacity: count)
        vectors.initialize(repeating: iovec(), count: count)
        peers = .allocate(capacity: count)
        peers.initialize(repeating: sockaddr_storage(), count: count)
        storage = .allocate(byteCount: count * size, alignment: 16)
        for index in 0..<count {
            vectors[index] = iovec(iov_base: storage + index * size, iov_len: size)
            headers[index].msg_hdr.msg_iov = vectors + index
            headers[index].msg_hdr.msg_iovlen = 1
            headers[index].msg_hdr.msg_name = UnsafeMutableRawPointer(peers + index)
        }
    }

    deinit {
        headers.deallocate()
        vectors.deallocate()
        peers.deallocate()
        storage.deallocate()
    }

    /// Reads up to `count` datagrams waiting on `fd`; returns how many (0 when none, or on an error).
    func receive(from fd: Int32) -> Int {
        for index in 0..<count {
            headers[index].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            headers[index].msg_hdr.msg_flags = 0
            vectors[index].iov_len = size
        }
        return max(0, Int(ipd_recvmmsg(fd, headers, UInt32(count), Int32(MSG_DONTWAIT))))
    }

    /// Whether datagram `index` was longer than its buffer and arrived cut short.
    func wasCut(_ index: Int) -> Bool {
        headers[index].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0
    }

    func bytes(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + index * size, count: Int(headers[index].msg_len))
    }

    func peer(_ index: Int) -> SocketAddress? {
        UnsafeRawPointer(peers + index).withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
    }

    /// Buffer `index`, to write a datagram to send into.
    func buffer(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage + index * size, count: size)
    }

    /// Datagram `index` (its first `size` octets) goes to the peer of datagram `peerIndex` of `batch`.
    func address(_ index: Int, to batch: DatagramBatch, _ peerIndex: Int, size: Int) {
        vectors[index].iov_len = size
        peers[index] = batch.peers[peerIndex]
        headers[index].msg_hdr.msg_namelen = batch.headers[peerIndex].msg_hdr.msg_namelen
    }

    /// Sends the first `number` datagrams on `fd`. A datagram the socket cannot take now is dropped, as
    /// sendto(2) would drop it: the client asks again.
    func send(_ number: Int, on fd: Int32) {
        var sent = 0
        while sent < number {
            let result = Int(ipd_sendmmsg(fd, headers + sent, UInt32(number - sent), Int32(MSG_DONTWAIT)))
            // A failure concerns the first datagram left: skip it and send the rest.
            sent += result > 0 ? result : 1
        }
    }
}
