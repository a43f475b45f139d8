import Glibc
import IPDirectCore

/// Reads a whole UTF-8 text file that the configuration is or names (the configuration itself, `auth_file`),
/// bounded in size: a file far larger than such a file can be is a wrong path (a log, a binary), and
/// refusing it also bounds the read loop.
///
/// Problems come back as one diagnostic, of line 0 unless it is in the text ("cannot open: No such file or
/// directory", "the file is not valid UTF-8").
enum TextFile {
    /// Bytes asked of read(2) at a time.
    static let chunkBytes = 64 * 1024

    static func read(path: String, maximumBytes: Int) -> Result<String, ConfigError> {
        readBytes(path: path, maximumBytes: maximumBytes).flatMap(decodeUTF8)
    }

    private static func readBytes(path: String, maximumBytes: Int) -> Result<[UInt8], ConfigError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(systemFailure("cannot open")) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while bytes.count <= maximumBytes {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(systemFailure("cannot read"))
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[0..<count]
        }
        return .failure(failure(line: 0, "file is larger than \(maximumBytes) bytes"))
    }

    /// The first bad byte is reported with its line.
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
