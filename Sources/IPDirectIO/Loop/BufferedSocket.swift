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
    /// Pauses reading at the read high watermark: made with the socket when ipd's reader reads it (which then
    /// checks it after every read), else by the first `setWatermarks` (and then watching the input).
    private var readLimit: UnsafeMutablePointer<ipd_read_limit>?
    /// A callback was deferred to the loop (`triggerRead`): it may still be pending, so the bufferevent
    /// must not serve another connection (`detach`).
    private var deferredCallback = false
    /// A plain accepted socket whose bufferevent is laid out as libevent 2.1's, which `detach` can empty for
    /// another connection.
    private var reusable = false
    /// How the socket reads and writes now: a setting asked for again costs nothing.
    private(set) var flow = Flow.libeventDefaults
    /// The local address of a connection this side made, while transparent mode records them
    /// (`OwnUpstreamConnections`): it leaves the record when the socket closes.
    private var recordedLocal: SocketAddress?

    private init(raw: OpaquePointer?, readLimit: UnsafeMutablePointer<ipd_read_limit>?, reusable: Bool, flow: Flow) {
        self.raw = raw
        self.readLimit = readLimit
        self.reusable = reusable
        self.flow = flow
        buffers = BufferedSocket.buffers(of: raw)
    }

    /// The settings that steer a socket's reading and writing, as its owner asked for them.
    struct Flow: Equatable {
        /// Reading pauses once this many bytes wait in the input (0: never).
        var readHighWater = 0
        /// The drain callback runs when the output falls to this many bytes.
        var drainAt = 0
        /// The most one read or one write moves; nil: libevent's default.
        var maxSingleIO: Int?
        var readTimeoutMillis: Int?
        var writeTimeoutMillis: Int?

        /// What a new bufferevent starts with.
        static let libeventDefaults = Flow()
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
        self.raw = raw
        buffers = BufferedSocket.buffers(of: raw)
        guard let limit = ipd_read_limit_new(raw, 0, 1) else { return }
        if PlainSocketReader.install(on: raw, sizing: .compact, limit: limit) {
            readLimit = limit
            reusable = true
        } else {
            ipd_read_limit_free(limit)
        }
    }

    /// The read limit ipd's reader is given, when ipd's reader reads this socket.
    private var readerLimit: UnsafeMutablePointer<ipd_read_limit>? {
        guard let readLimit, readLimit.pointee.checked_by_reader != 0 else { return nil }
        return readLimit
    }

    /// A plain accepted socket on `fd` in the emptied bufferevent `spare`, as `init(socket:base:)` makes one
    /// but with no allocation, and with the flow settings the spare kept.
    init(socket fd: Int32, reusing spare: Spare) {
        ipd_bufferevent_reuse(spare.raw, fd, PlainSocketReader.routine(.compact), spare.readLimit)
        raw = spare.raw
        readLimit = spare.readLimit
        reusable = true
        flow = spare.flow
        buffers = BufferedSocket.buffers(of: raw)
    }

    /// A TLS client on the connected socket `fd`, handshaking as soon as the loop runs. It owns `ssl`
    /// and the socket from now on, and the record of the connect (`OwnUpstreamConnections`) the plain socket
    /// handed over with it; when it cannot be made, neither `ssl` nor the socket is freed, and the record is
    /// dropped.
    init?(tlsClientOn fd: Int32, ssl: OpaquePointer, base: EventBase, recordedLocal: SocketAddress? = nil) {
        guard let raw = bufferevent_openssl_socket_new(base.raw, fd, ssl, BUFFEREVENT_SSL_CONNECTING,
                                                       Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            BufferedSocket.release(recordedLocal)
            return nil
        }
        self.raw = raw
        self.recordedLocal = recordedLocal
        buffers = BufferedSocket.buffers(of: raw)
    }

    deinit {
        BufferedSocket.release(recordedLocal)
        if let raw { BufferedSocket.free(raw, readLimit) }
    }

    /// The connection this side made is no longer ipdirect's own (closed, or its descriptor handed away).
    private mutating func forgetRecordedConnect() {
        BufferedSocket.release(recordedLocal)
        recordedLocal = nil
    }

    /// Takes a connect this side made out of `OwnUpstreamConnections`, when one was recorded.
    private static func release(_ recordedLocal: SocketAddress?) {
        if let recordedLocal { OwnUpstreamConnections.recording?.closed(local: recordedLocal) }
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
        var moved = BufferedSocket(raw: raw, readLimit: readLimit, reusable: reusable, flow: flow)
        moved.deferredCallback = deferredCallback
        moved.recordedLocal = recordedLocal
        raw = nil
        readLimit = nil
        recordedLocal = nil
        return moved
    }

    var isOpen: Bool { raw != nil }

    /// Clears the callbacks, then frees the buffers and closes the socket; does nothing when already closed.
    mutating func close() {
        forgetRecordedConnect()
        guard let raw else { return }
        self.raw = nil
        BufferedSocket.free(raw, readLimit)
        readLimit = nil
    }

    /// Frees the buffers but keeps the socket open, and returns its descriptor.
    mutating func releaseDescriptor() -> Int32 {
        forgetRecordedConnect()
        guard let raw else { return -1 }
        self.raw = nil
        let fd = bufferevent_getfd(raw)
        // With no fd left, freeing the bufferevent no longer closes the socket.
        bufferevent_setfd(raw, -1)
        BufferedSocket.free(raw, readLimit)
        readLimit = nil
        return fd
    }

    /// Like `releaseDescriptor`, for a TLS socket to take the descriptor over: the connection stays recorded
    /// as ipdirect's own (a redirect of its handshake must still be seen as a loop), and the record goes with
    /// the descriptor, for `init(tlsClientOn:ssl:base:recordedLocal:)`.
    mutating func releaseDescriptorToTLS() -> (fd: Int32, recordedLocal: SocketAddress?) {
        let recorded = recordedLocal
        recordedLocal = nil
        return (releaseDescriptor(), recorded)
    }

    /// An emptied plain bufferevent on no descriptor, with its read limit and the flow settings it had, kept
    /// for another connection (`SpareSockets`); nothing reaches it until `init(socket:reusing:)`.
    struct Spare {
        fileprivate let raw: OpaquePointer
        fileprivate let readLimit: UnsafeMutablePointer<ipd_read_limit>
        let flow: Flow

        /// Frees a spare that will not be used.
        func free() {
            bufferevent_setcb(raw, nil, nil, nil, nil)
            ipd_read_limit_free(readLimit)
            ipd_bufferevent_free_detached(raw)
        }
    }

    /// Leaves the socket open and returns its descriptor, like `releaseDescriptor`, and the bufferevent
    /// emptied for another connection: no bytes, callbacks or armed events are kept, only the flow settings,
    /// which the next connection asks for again (`SpareSockets.socket(for:flow:)`), most often unchanged. The
    /// spare is nil, and the bufferevent freed, when it cannot be reused: writing was disabled, a deferred
    /// callback may be pending, or it is not a plain accepted socket laid out as libevent 2.1's.
    mutating func detach() -> (fd: Int32, spare: Spare?) {
        guard let raw else { return (-1, nil) }
        guard reusable, !deferredCallback, let limit = readLimit else { return (releaseDescriptor(), nil) }
        bufferevent_setcb(raw, nil, nil, nil, nil)
        let fd = ipd_bufferevent_detach(raw)
        guard fd >= 0 else { return (releaseDescriptor(), nil) }
        let spare = Spare(raw: raw, readLimit: limit, flow: flow)
        self.raw = nil
        readLimit = nil
        return (fd, spare)
    }

    private static func free(_ raw: OpaquePointer, _ readLimit: UnsafeMutablePointer<ipd_read_limit>?) {
        bufferevent_setcb(raw, nil, nil, nil, nil)
        guard let readLimit else { return bufferevent_free(raw) }
        let readByIPD = readLimit.pointee.checked_by_reader != 0
        ipd_read_limit_free(readLimit)
        if readByIPD { ipd_bufferevent_free_read_by_ipd(raw) } else { bufferevent_free(raw) }
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
    mutating func connect(to address: SocketAddress) -> Bool {
        let started = address.withSockaddr { bufferevent_socket_connect(raw!, $0, Int32($1)) } == 0
        if started, let own = OwnUpstreamConnections.recording, let local = SocketAddress(localOf: fd) {
            own.opened(local: local, remote: address)
            recordedLocal = local
        }
        // Setting the new descriptor gave the read event back to libevent's reader.
        if let limit = readerLimit, !PlainSocketReader.install(on: raw!, sizing: .bulk, limit: limit),
           ipd_read_limit_watch_always(limit) == 0 {
            fatalError("out of memory for a read limit")
        }
        return started
    }

    // MARK: - Flow

    /// Reads what the socket holds now, as its read event does when it fires; the callbacks follow as then.
    /// Only for an accepted plain socket that is reading.
    func readReady() {
        // libevent's own reader, where ipd's could not be installed, reads it on the next turn of the loop.
        guard let limit = readerLimit else { return }
        PlainSocketReader.readReady(limit, fd: fd, sizing: .compact)
    }

    /// Bytes read from the descriptor elsewhere, handed over as `readReady` would have read them.
    func deliverRead(_ bytes: UnsafeRawBufferPointer) {
        PlainSocketReader.deliver(bytes, to: raw!, limit: readerLimit)
    }

    /// Bytes were read into the input by the caller itself (`evbuffer_read`): the read limit looks at them, as
    /// after a read of the socket's own reader.
    func inputGrew() {
        if let limit = readerLimit { ipd_read_limit_after_read(limit) }
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

    /// Gives the socket every setting of `newFlow`, changing only those it does not have yet: a kept
    /// bufferevent that served a connection like this one (`SpareSockets`) needs no library call here.
    mutating func apply(_ newFlow: Flow) {
        if newFlow.readHighWater != flow.readHighWater || newFlow.drainAt != flow.drainAt {
            setWatermarks(readHigh: newFlow.readHighWater, drainAt: newFlow.drainAt)
        }
        if newFlow.maxSingleIO != flow.maxSingleIO { setMaxSingleIO(newFlow.maxSingleIO) }
        if newFlow.readTimeoutMillis != flow.readTimeoutMillis || newFlow.writeTimeoutMillis != flow.writeTimeoutMillis {
            setTimeouts(readMillis: newFlow.readTimeoutMillis, writeMillis: newFlow.writeTimeoutMillis)
        }
    }

    /// Pauses reading once `high` bytes wait in the input (0: never), and resumes it below; the drain callback
    /// runs when the output falls to `drainAt` bytes. libevent's read watermark is not used (`ipd_read_limit`).
    mutating func setWatermarks(readHigh high: Int, drainAt low: Int) {
        if let readLimit {
            ipd_read_limit_set(readLimit, high)
        } else {
            guard let limit = ipd_read_limit_new(raw!, high, 0) else { fatalError("out of memory for a read limit") }
            readLimit = limit
        }
        bufferevent_setwatermark(raw!, Int16(EV_WRITE), low, 0)
        flow.readHighWater = high
        flow.drainAt = low
    }

    /// The input length at which reading pauses (0: never).
    var readHighWater: Int { readLimit.map { Int($0.pointee.high) } ?? 0 }

    /// The drain callback runs only once the output is empty.
    mutating func drainOnlyWhenEmpty() {
        guard flow.drainAt != 0 else { return }
        bufferevent_setwatermark(raw!, Int16(EV_WRITE), 0, 0)
        flow.drainAt = 0
    }

    /// At most `bytes` per read and per write; nil: libevent's default.
    mutating func setMaxSingleIO(_ bytes: Int?) {
        // libevent takes 0 as its default.
        bufferevent_set_max_single_read(raw!, bytes ?? 0)
        bufferevent_set_max_single_write(raw!, bytes ?? 0)
        flow.maxSingleIO = bytes
    }

    /// An event callback with BEV_EVENT_TIMEOUT after this long without reading or writing while it
    /// waits to (nil: no timeout).
    mutating func setTimeouts(readMillis: Int?, writeMillis: Int?) {
        flow.readTimeoutMillis = readMillis
        flow.writeTimeoutMillis = writeMillis
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
