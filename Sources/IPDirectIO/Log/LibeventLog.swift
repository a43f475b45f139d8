import CEvent

/// libevent's own messages (evdns: "Nameserver ... has failed") go through the event log, in its format
/// and under its level, instead of as bare `[msg]` lines on standard error.
enum LibeventLog {
    /// Installs the callback once per process; libevent keeps one global log function.
    static let installed: Void = {
        event_set_log_callback { severity, message in
            let text = message.map { String(cString: $0) } ?? ""
            switch severity {
            case EVENT_LOG_DEBUG: Logger.debug("event=libevent message=\"\(text)\"")
            case EVENT_LOG_MSG: Logger.info("event=libevent message=\"\(text)\"")
            case EVENT_LOG_WARN: Logger.warning("event=libevent message=\"\(text)\"")
            default: Logger.error("event=libevent message=\"\(text)\"")
            }
        }
    }()
}
