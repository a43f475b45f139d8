import CEvent

/// Turns OpenSSL's error codes into words. OpenSSL records errors in a per-thread queue; a
/// bufferevent_openssl moves the errors of its connection out of that queue into its own list.
enum OpenSSLErrorQueue {
    /// Buffer for ERR_error_string_n; OpenSSL documents 256 bytes as always enough.
    private static let textCapacity = 256

    /// The reason part of an error code ("wrong version number"), or OpenSSL's full error text when
    /// the code has no registered reason.
    static func reason(of code: UInt) -> String {
        if let reason = ERR_reason_error_string(code) { return String(cString: reason) }
        var text = [CChar](repeating: 0, count: textCapacity)
        ERR_error_string_n(code, &text, textCapacity)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Empties the error list libevent kept for `bev` and returns its oldest OpenSSL error: the root
    /// cause, recorded before the errors that followed from it. libevent also records the
    /// SSL_get_error() value (SSL_ERROR_SSL, SSL_ERROR_SYSCALL...) in that list; those carry no
    /// library and no words, and are skipped.
    static func drain(bufferevent bev: OpaquePointer) -> String? {
        var oldest: UInt = 0
        // bufferevent_get_openssl_error hands out the newest first and 0 once the list is empty.
        while case let code = bufferevent_get_openssl_error(bev), code != 0 {
            if ERR_GET_LIB(code) != 0 { oldest = code }
        }
        let threadQueue = drainThread()
        return oldest != 0 ? reason(of: oldest) : threadQueue
    }

    /// Empties this thread's queue, so a stale error never explains a later failure, and returns
    /// its oldest entry.
    @discardableResult
    static func drainThread() -> String? {
        let oldest = ERR_get_error()
        ERR_clear_error()
        return oldest != 0 ? reason(of: oldest) : nil
    }
}
