import Glibc

/// The signals that drive the daemon, taken synchronously by the main thread with sigtimedwait(2).
/// They are blocked before any other thread starts, so every thread inherits the mask and none of
/// them is ever interrupted by one.
struct ServiceSignals {
    enum Received: CustomStringConvertible {
        /// SIGHUP: read the configuration file again.
        case reload
        /// SIGTERM or SIGINT: drain, then exit.
        case stop(Int32)

        var description: String {
            switch self {
            case .reload: return "SIGHUP"
            case .stop(let number): return number == SIGINT ? "SIGINT" : "SIGTERM"
            }
        }
    }

    private var set = sigset_t()

    /// Blocks SIGHUP, SIGINT and SIGTERM for the calling thread and every thread it starts later.
    init() {
        sigemptyset(&set)
        for signal in [SIGHUP, SIGINT, SIGTERM] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The next signal, or nil when `timeoutMillis` passed first (nil timeout: wait as long as it takes).
    func next(timeoutMillis: Int?) -> Received? {
        var set = self.set
        let number: Int32
        if let timeoutMillis {
            var timeout = timespec(tv_sec: timeoutMillis / 1000, tv_nsec: timeoutMillis % 1000 * 1_000_000)
            number = sigtimedwait(&set, nil, &timeout)
        } else {
            number = sigwaitinfo(&set, nil)
        }
        switch number {
        case SIGHUP: return .reload
        case SIGINT, SIGTERM: return .stop(number)
        default: return nil  // timeout (EAGAIN) or EINTR
        }
    }
}
