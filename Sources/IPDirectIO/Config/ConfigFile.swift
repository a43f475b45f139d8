import Glibc
import IPDirectCore

/// Reads a configuration file from disk and parses it with `Config.parse`.
public enum ConfigFile {
    /// A configuration this large is a wrong path (a log, a binary), not a config; refusing it
    /// also bounds the read loop.
    static let maximumBytes = 1 << 20
    /// Bytes asked of read(2) at a time.
    static let chunkBytes = 64 * 1024

    /// Problems reading the file come back as diagnostics with line 0
    /// ("cannot open: No such file or directory"); problems in its text carry their lines.
    public static func load(path: String) -> Result<Config, ConfigError> {
        readBytes(path: path).flatMap(decodeUTF8).flatMap(Config.parse)
    }

    private static func readBytes(path: String) -> Result<[UInt8], ConfigError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(systemFailure("cannot open")) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(systemFailure("cannot read"))
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[0..<count]
        }
        return .failure(failure(line: 0, "file is larger than \(maximumBytes) bytes"))
    }

    /// TOML 1.0 requires UTF-8; the first bad byte is reported with its line.
    private static func decodeUTF8(_ bytes: [UInt8]) -> Result<String, ConfigError> {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1 }
            case .emptyInput:
                return .success(String(decoding: bytes, as: UTF8.self))
            case .error:
                return .failure(failure(line: line, "the file is not valid UTF-8"))
            }
        }
    }

    private static func systemFailure(_ action: String) -> ConfigError {
        failure(line: 0, "\(action): \(String(cString: strerror(errno)))")
    }

    private static func failure(line: Int, _ message: String) -> ConfigError {
        ConfigError(diagnostics: [ConfigDiagnostic(line: line, message: message)])
    }
}
