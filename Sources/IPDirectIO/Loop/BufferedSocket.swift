import CEvent
import Glibc
import IPDirectCore

/// One libevent bufferevent (a socket with an input and an output buffer) and its one owner. The value
/// cannot be copied, so exactly one place holds it; whoever holds it names the object its callbacks go to
/// with `handOver(to:calling:)`, which replaces the previous owner's callbacks at once. `close()` clears the
/// callbacks before it frees, so no callback can reach an owner that is gone, and may be called twice.
///
/// A struct around the pointer, so it costs no allocation and no dynamic dispatch on the data path.
struct BufferedSocket: ~Copyable {
    /// Nil once closed, released or handed off: an empty value owns nothing.
    private var raw: OpaquePointer? {
        didSet { buffers = BufferedSocket.buffers(of: raw) }
    }
    /// The bufferevent's input and output evbuffers, which live as long as it does: read on every decision the
    /// session makes, they are kept here rather than asked of libevent each time.
    private var buffers: Buffers?
    /// Pauses reading at the read high watermark; made by the first `setWatermarks`.
    private var readLimit: UnsafeMutablePointer<ipd_read_limit>?
    /// A callback was deferred to the loop (`triggerRead`): it may still be pending, so the bufferevent
    /// must not serve another connection (`detach`).
    private var deferredCallback = false

    private init(raw: OpaquePointer?, readLimit: UnsafeMutablePointer<ipd_read_limit>?) {
        self.raw = raw
        self.readLimit = readLimit
        buffers = BufferedSocket.buffers(of: raw)
    }

    private struct Buffers {
        let input: OpaquePointer
        let output: OpaquePointer
    }

    private static func buffers(of raw: OpaquePointer?) -> Buffers? {
        guard let raw else { return nil }
        return Buffers(input: bufferevent_get_input(raw), output: bufferevent_get_output(raw))
    }

    /// Owns nothing yet: for an owner whose socket comes later.
    init() {
        raw = nil
    }

    /// A plain socket on `fd` (or, with -1, one to `connect(to:)` later) that closes the socket when freed.
    /// An accepted socket reads compactly; one this side connects reads in bulk (`PlainSocketReader.Sizing`).
    init?(socket fd: Int32, base: EventBase) {
        guard let raw = bufferevent_socket_new(base.raw, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        PlainSocketReader.install(on: raw, sizing: .compact)
        self.raw = raw
        buffers = BufferedSocket.buffers(of: raw)
    }

    /// A plain accepted socket on `fd` in the emptied bufferevent `spare`, as `init(socket:base:)` makes one
    /// but with no allocation.
    init(socket fd: Int32, reusing spare: Spare) {
        ipd_bufferevent_reuse(spare.raw, fd, PlainSocketReader.routine(.compact))
        raw = spare.raw
        readLimit = spare.readLimit
        buffers = BufferedSocket.buffers(of: raw)
    }

    /// A TLS client on the connected socket `fd`, handshaking as soon as the loop runs. It owns `ssl`
    /// and the socket from now on; when it cannot be made, neither is freed.
    init?(tlsClientOn fd: Int32, ssl: OpaquePointer, base: EventBase) {
        guard let raw = bufferevent_openssl_socket_new(base.raw, fd, ssl, BUFFEREVENT_SSL_CONNECTING,
                                                       Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
        self.raw = raw
        buffers = BufferedSocket.buffers(of: raw)
    }

    deinit {
        if let raw { BufferedSocket.free(raw, readLimit) }
    }

    // MARK: - Ownership

    /// From now on `owner` receives this socket's read, drain and event callbacks (those `handlers` has),
    /// and the previous owner none.
    func handOver<Owner: AnyObject>(to owner: Owner, calling handlers: BufferEventHandlers<Owner>) {
        bufferevent_setcb(raw!, handlers.read, handlers.drain, handlers.event, Unmanaged.passUnretained(owner).toOpaque())
    }

    /// No callback reaches anyone until the next `handOver`.
    func dropCallbacks() {
        bufferevent_setcb(raw!, nil, nil, nil, nil)
    }

    /// Moves the socket into the returned value and leaves this one empty.
    mutating func take() -> BufferedSocket {
        var moved = BufferedSocket(raw: raw, readLimit: readLimit)
        moved.deferredCallback = deferredCallback
        raw = nil
        readLimit = nil
        return moved
    }

    var isOpen: Bool { raw != nil }

    /// Clears the callbacks, then frees the buffers and closes the socket; does nothing when already closed.
    mutating func close() {
        guard let raw else { return }
        self.raw = nil
        BufferedSocket.free(raw, readLimit)
        readLimit = nil
    }

    /// Frees the buffers but keeps the socket open, and returns its descriptor.
    mutating func releaseDescriptor() -> Int32 {
        guard let raw else { return -1 }
        self.raw = nil
        let fd = bufferevent_getfd(raw)
        // With no fd left, freeing the bufferevent no longer closes the socket.
        bufferevent_setfd(raw, -1)
        BufferedSocket.free(raw, readLimit)
        readLimit = nil
        return fd
    }

    /// An emptied plain bufferevent on no descriptor, with its read limit, kept for another connection
    /// (`SpareSockets`); nothing reaches it until `init(socket:reusing:)`.
    struct Spare {
        fileprivate let raw: OpaquePointer
        fileprivate let readLimit: UnsafeMutablePointer<ipd_read_limit>?

        /// Frees a spare that will not be used.
        func free() { BufferedSocket.free(raw, readLimit) }
    }

    /// Leaves the socket open and returns its descriptor, like `releaseDescriptor`, and the bufferevent
    /// emptied for another connection, as a new one would be (no bytes, callbacks, timeouts, watermarks or
    /// read limit kept); the spare is nil, and the bufferevent freed, when it cannot be reused: writing was
    /// disabled, a deferred callback may be pending, or it is not a plain socket laid out as libevent 2.1's.
    mutating func detach() -> (fd: Int32, spare: Spare?) {
        guard let raw else { return (-1, nil) }
        guard !deferredCallback, ssl == nil else { return (releaseDescriptor(), nil) }
        bufferevent_setcb(raw, nil, nil, nil, nil)
        let fd = ipd_bufferevent_detach(raw)
        guard fd >= 0 else { return (releaseDescriptor(), nil) }
        if let readLimit { ipd_read_limit_set(readLimit, 0) }
        let spare = Spare(raw: raw, readLimit: readLimit)
        self.raw = nil
        readLimit = nil
        return (fd, spare)
    }

    private static func free(_ raw: OpaquePointer, _ readLimit: UnsafeMutablePointer<ipd_read_limit>?) {
        bufferevent_setcb(raw, nil, nil, nil, nil)
        if let readLimit { ipd_read_limit_free(readLimit) }
        bufferevent_free(raw)
    }

    // MARK: - Buffers and socket

    var fd: Int32 { bufferevent_getfd(raw!) }
    /// The evbuffer read bytes arrive in.
    var input: OpaquePointer { buffers!.input }
    /// The evbuffer whose bytes are still to be written.
    var output: OpaquePointer { buffers!.output }
    /// Bytes read and not taken yet; a closed socket holds none.
    var inputLength: Int {
        guard let buffers else { return 0 }
        return ipd_evbuffer_length(buffers.input)
    }
    /// Bytes not written yet; a closed socket holds none.
    var outputLength: Int {
        guard let buffers else { return 0 }
        return ipd_evbuffer_length(buffers.output)
    }

    /// Whether bytes may be written to the descriptor straight away: nothing is queued ahead of them, and the
    /// socket is plain (a TLS socket's bytes must go through OpenSSL).
    var writesAtOnce: Bool { ipd_evbuffer_length(output) == 0 && ssl == nil }

    /// The OpenSSL connection of a TLS socket; nil for a plain one.
    var ssl: OpaquePointer? { bufferevent_openssl_get_ssl(raw!) }

    /// Starts connecting a socket made with -1; false when it failed at once (errno says why).
    func connect(to address: SocketAddress) -> Bool {
        let started = address.withSockaddr { bufferevent_socket_connect(raw!, $0, Int32($1)) } == 0
        // Setting the new descriptor gave the read event back to libevent's reader.
        PlainSocketReader.install(on: raw!, sizing: .bulk)
        return started
    }

    // MARK: - Flow

    /// Reads what the socket holds now, as its read event does when it fires; the callbacks follow as then.
    /// Only for an accepted plain socket that is reading.
    func readReady() {
        PlainSocketReader.readReady(raw!, fd: fd, sizing: .compact)
    }

    /// Bytes read from the descriptor elsewhere, handed over as `readReady` would have read them.
    func deliverRead(_ bytes: UnsafeRawBufferPointer) {
        PlainSocketReader.deliver(bytes, to: raw!)
    }

    var isReading: Bool { bufferevent_get_enabled(raw!) & Int16(EV_READ) != 0 }

    func pauseReading() { bufferevent_disable(raw!, Int16(EV_READ)) }

    /// Reads again; a no-op (no event_add) when reading was not paused.
    func resumeReading() {
        if !isReading { bufferevent_enable(raw!, Int16(EV_READ)) }
    }

    /// Neither reads nor writes: the socket is being used by something else (splice).
    func pauseReadingAndWriting() { bufferevent_disable(raw!, Int16(EV_READ | EV_WRITE)) }

    func resumeReadingAndWriting() { bufferevent_enable(raw!, Int16(EV_READ | EV_WRITE)) }

    /// Sends a FIN: the peer reads EOF once what is queued has been written by the kernel.
    func shutWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Pauses reading once `high` bytes wait in the input (0: never), and resumes it below; the drain callback
    /// runs when the output falls to `drainAt` bytes. libevent's read watermark is not used (`ipd_read_limit`).
    mutating func setWatermarks(readHigh high: Int, drainAt low: Int) {
        if let readLimit {
            ipd_read_limit_set(readLimit, high)
        } else {
            guard let limit = ipd_read_limit_new(raw!, high) else { fatalError("out of memory for a read limit") }
            readLimit = limit
        }
        bufferevent_setwatermark(raw!, Int16(EV_WRITE), low, 0)
    }

    /// The input length at which reading pauses (0: never).
    var readHighWater: Int { readLimit.map { Int($0.pointee.high) } ?? 0 }

    /// The drain callback runs only once the output is empty.
    func drainOnlyWhenEmpty() { bufferevent_setwatermark(raw!, Int16(EV_WRITE), 0, 0) }

    func setMaxSingleIO(_ bytes: Int) {
        bufferevent_set_max_single_read(raw!, bytes)
        bufferevent_set_max_single_write(raw!, bytes)
    }

    /// An event callback with BEV_EVENT_TIMEOUT after this long without reading or writing while it
    /// waits to (nil: no timeout).
    func setTimeouts(readMillis: Int?, writeMillis: Int?) {
        var read = timeval(millis: readMillis ?? 0)
        var write = timeval(millis: writeMillis ?? 0)
        _ = withUnsafePointer(to: &read) { readAfter in
            withUnsafePointer(to: &write) { writeAfter in
                bufferevent_set_timeouts(raw!, readMillis == nil ? nil : readAfter, writeMillis == nil ? nil : writeAfter)
            }
        }
    }

    /// Runs the read callback from the loop, for bytes that arrived before the owner listened.
    mutating func triggerRead() {
        deferredCallback = true
        bufferevent_trigger(raw!, Int16(EV_READ), Int32(BEV_TRIG_DEFER_CALLBACKS.rawValue))
    }

    // MARK: - Moving bytes

    /// Queues `bytes` for writing.
    func write(_ bytes: UnsafeRawBufferPointer) { bufferevent_write(raw!, bytes.baseAddress, bytes.count) }

    /// Moves up to `limit` input bytes (all when nil) to `destination`, written at once where possible;
    /// returns how many moved.
    func moveInput(to destination: borrowing BufferedSocket, limit: Int? = nil) -> Int {
        ByteTransfer.move(from: input, to: destination, limit: limit)
    }

    /// Moves up to `limit` input bytes to the end of the evbuffer `buffer`; returns how many moved.
    func moveInput(to buffer: OpaquePointer, limit: Int) -> Int {
        Int(max(0, evbuffer_remove_buffer(input, buffer, limit)))
    }

    // MARK: - TLS

    /// Empties the OpenSSL errors kept for this socket and returns the oldest, the root cause.
    func takeOpenSSLError() -> String? { OpenSSLErrorQueue.drain(bufferevent: raw!) }

    /// Sends a TLS close_notify (RFC 8446 §6.1) before closing. It also keeps the session resumable:
    /// OpenSSL marks the session of an SSL freed without a shutdown as not resumable, and that session
    /// object is the one the session cache holds.
    func sendCloseNotify() {
        guard let raw, let ssl = bufferevent_openssl_get_ssl(raw) else { return }
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.drainThread()
    }
}
