import Glibc
import IPDirectCore

/// Buffers access-log lines per worker and writes them in batches, so a busy proxy does not pay
/// one write(2) per request. Lines are flushed at least every `flushIntervalMillis`.
final class AccessLogWriter {
    /// How long a line may wait in the buffer before it is written.
    static let flushIntervalMillis = 200
    /// Buffer size that triggers an immediate write.
    static let flushThresholdBytes = 32 * 1024

    private let fd: Int32?
    private var buffer: [UInt8] = []
    private let timer: Timer
    private var timerArmed = false

    /// `fd` nil turns access logging off.
    init(base: EventBase, fd: Int32?) {
        self.fd = fd
        timer = Timer(base: base)
        buffer.reserveCapacity(AccessLogWriter.flushThresholdBytes * 2)
        timer.action = { [unowned self] in
            timerArmed = false
            flush()
        }
    }

    var isEnabled: Bool { fd != nil }

    func append(_ record: AccessLogRecord) {
        guard fd != nil else { return }
        buffer.append(contentsOf: record.line.utf8)
        if buffer.count >= AccessLogWriter.flushThresholdBytes {
            flush()
        } else if !timerArmed {
            timerArmed = true
            timer.schedule(afterMillis: AccessLogWriter.flushIntervalMillis)
        }
    }

    func flush() {
        guard let fd, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Opens the access-log destination named in the config: "-" is stdout, "off" disables it.
    static func openDestination(_ setting: String) -> Result<Int32?, StartupError> {
        switch setting {
        case "off": return .success(nil)
        case "-": return .success(STDOUT_FILENO)
        default:
            let fd = open(setting, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o640)
            if fd < 0 { return .failure(StartupError("cannot open access log \(setting): \(String(cString: strerror(errno)))")) }
            return .success(fd)
        }
    }
}
