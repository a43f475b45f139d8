import IPDirectCore

/// Reads a configuration file from disk and parses it with `Config.parse`.
public enum ConfigFile {
    /// A configuration this large is a wrong path (a log, a binary), not a config.
    static let maximumBytes = 1 << 20

    /// Problems reading the file come back as diagnostics with line 0
    /// ("cannot open: No such file or directory"); problems in its text carry their lines.
    public static func load(path: String) -> Result<Config, ConfigError> {
        TextFile.read(path: path, maximumBytes: maximumBytes)
            .flatMap(Config.parse)
    }
}
