import CEvent

/// Bufferevents of one loop's closed or parked client connections, emptied and kept for the next accepted or
/// woken ones: making a bufferevent allocates it and two evbuffers, and freeing it finalizes all three on a
/// later turn of the loop, a good share of what a new connection costs. At most `capacity` are kept, a few
/// hundred bytes each, so the memory held at rest stays small whatever the number of connections was.
final class SpareSockets {
    /// Enough for the connections a busy loop closes between two bursts of new ones.
    static let defaultCapacity = 64

    let capacity: Int
    private let base: EventBase
    private var spares: [BufferedSocket.Spare] = []

    init(base: EventBase, capacity: Int = SpareSockets.defaultCapacity) {
        self.base = base
        self.capacity = capacity
        spares.reserveCapacity(capacity)
    }

    deinit {
        for spare in spares { spare.free() }
    }

    /// How many are kept now.
    var count: Int { spares.count }

    /// A plain socket reading the accepted `fd` compactly with the settings of `flow`, in a kept bufferevent
    /// when there is one; nil when none can be made (the descriptor stays open). Nothing of a kept
    /// bufferevent's last connection but the settings `flow` gives anyway reaches the new one.
    func socket(for fd: Int32, flow: BufferedSocket.Flow) -> BufferedSocket? {
        var socket: BufferedSocket
        if let spare = spares.popLast() {
            socket = BufferedSocket(socket: fd, reusing: spare)
        } else {
            guard let made = BufferedSocket(socket: fd, base: base) else { return nil }
            socket = made
        }
        socket.apply(flow)
        return socket
    }

    /// Takes `socket`'s bufferevent, emptied but for its flow settings, when there is room, or frees it;
    /// returns the descriptor, which stays open.
    func keep(_ socket: inout BufferedSocket) -> Int32 {
        guard spares.count < capacity else { return socket.releaseDescriptor() }
        let (fd, spare) = socket.detach()
        if let spare { spares.append(spare) }
        return fd
    }
}
