import IPDirectCore

/// Reads `auth_file`: at startup, for `ipdirect check`, and again on SIGHUP. Problems carry the line they
/// are on and name the user, never a hash.
public enum PasswordFileReader {
    /// Ten thousand bcrypt users take under a megabyte; a larger file is the wrong file.
    static let maximumBytes = 4 << 20

    /// Problems reading the file have line 0 ("cannot open: Permission denied").
    public static func load(path: String) -> Result<PasswordFile, ConfigError> {
        TextFile.read(path: path, maximumBytes: maximumBytes)
            .flatMap { text in
                PasswordFile.parse(text).mapError { error in
                    ConfigError(diagnostics: error.problems.map { ConfigDiagnostic(line: $0.line, message: $0.message) })
                }
            }
    }
}
