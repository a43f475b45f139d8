import IPDirectCore

/// `[access]` at startup and on SIGHUP: the users of `auth_file`, and the warning about a listener anyone
/// may use.
extension Server {
    /// The users of `auth_file`, or none when it is not set; a file that cannot be read or parsed stops startup.
    static func loadUsers(_ access: AccessSettings) throws(StartupError) -> PasswordFile {
        guard let path = access.authFile else { return PasswordFile(hashes: [:]) }
        switch PasswordFileReader.load(path: path) {
        case .success(let users):
            Logger.info("event=auth_file_loaded file=\(path) users=\(users.hashes.count)")
            return users
        case .failure(let error):
            throw StartupError("auth_file: \(error.formatted(file: path))")
        }
    }

    /// One warning line per listener off loopback that serves anyone on the networks it faces.
    static func warnIfOpen(listen: [SocketAddress], access: AccessSettings) {
        for warning in OpenProxyWarning.find(listen: listen, access: access) {
            Logger.warning("\(warning)")
        }
    }

    /// Reads `auth_file` again, changed or not, since its users may have. A file that cannot be read or
    /// parsed keeps the running `auth_file` and users in force, as a broken configuration file does.
    func reloadUsers(_ next: inout Config) {
        guard let path = next.access.authFile else {
            credentials.replaceUsers(PasswordFile(hashes: [:]))
            return
        }
        switch PasswordFileReader.load(path: path) {
        case .success(let users):
            let changed = credentials.replaceUsers(users)
            Logger.info("event=auth_file_loaded file=\(path) users=\(users.hashes.count) changed=\(changed)")
        case .failure(let error):
            for diagnostic in error.diagnostics {
                Logger.error("event=auth_file_rejected file=\(path) line=\(diagnostic.line) reason=\"\(diagnostic.message)\"")
            }
            Logger.error("event=auth_file_rejected file=\(path) problems=\(error.diagnostics.count) note=\"the running auth_file and its users stay in force\"")
            next.access.authFile = config.access.authFile
        }
    }
}
