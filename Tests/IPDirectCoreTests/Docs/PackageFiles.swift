import Glibc

/// Files of the package itself, for tests that keep the documentation in step with the code. Read
/// relative to this file's path, so the tests need no working directory and no Foundation.
enum PackageFiles {
    /// The package root, four levels above this file (Tests/IPDirectCoreTests/Docs/<file>).
    static let root: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        let levelsBelowRoot = 4
        components.removeLast(levelsBelowRoot)
        return components.joined(separator: "/")
    }()

    /// The text of a file under the root, or nil when it cannot be read.
    static func read(_ relativePath: String) -> String? {
        guard let file = fopen(root + "/" + relativePath, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isDirectory(_ relativePath: String) -> Bool {
        var info = stat()
        return stat(root + "/" + relativePath, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names of the folders directly inside a folder under the root, sorted; hidden ones left out.
    static func folders(in relativePath: String) -> [String] {
        guard let directory = opendir(root + "/" + relativePath) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    String(cString: $0)
                }
            }
            if !name.hasPrefix("."), isDirectory(relativePath + "/" + name) {
                names.append(name)
            }
        }
        return names.sorted()
    }
}
