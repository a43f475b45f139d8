import Testing

/// docs/architecture.md's layout block names the folders of the tree as they are, so the page a contributor
/// reads first cannot drift from the code: a folder added, moved or removed fails here until the page says so.
@Suite struct ArchitecturePageTests {
    static let page = "docs/architecture.md"

    /// The fenced block under "## Layout of the source", one entry a line: a path at the left margin
    /// (`Sources/IPDirectCore/`, `Tests/e2e/`, `config/ systemd/ scripts/`), a target's folder indented by
    /// two spaces, a folder inside that by four; the description after two or more spaces.
    static func listedFolders(in text: String) -> [String] {
        var listed: [String] = []
        var target: String?
        var folder: String?
        var inBlock = false
        var seenHeading = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { seenHeading = line == "## Layout of the source" }
            guard seenHeading else { continue }
            if line.hasPrefix("```") {
                if inBlock { break }
                inBlock = true
                continue
            }
            guard inBlock else { continue }
            let indent = line.prefix { $0 == " " }.count
            let rest = line.dropFirst(indent)
            let nameColumn = rest.firstRange(of: "  ").map { rest[..<$0.lowerBound] } ?? rest
            let names = nameColumn.split(separator: " ").filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }
            guard let name = names.first else { continue }
            switch indent {
            case 0:
                listed += names
                target = name.hasPrefix("Sources/") ? name : nil
                folder = nil
            case 2:
                guard let target else { continue }
                folder = target + "/" + name
                listed.append(target + "/" + name)
            case 4:
                guard let folder else { continue }
                listed.append(folder + "/" + name)
            default:
                continue
            }
        }
        return listed
    }

    @Test func everyTargetAndItsFoldersAppearOnThePage() throws {
        let text = try #require(PackageFiles.read(Self.page))
        let listed = Set(Self.listedFolders(in: text))
        let targets = PackageFiles.folders(in: "Sources").map { "Sources/" + $0 }
        #expect(!targets.isEmpty, "no targets found under Sources/")
        let folders = targets + targets.flatMap { target in
            PackageFiles.folders(in: target).map { target + "/" + $0 }
        }
        let unlisted = folders.filter { !listed.contains($0) }.map { $0 + "/" }
        #expect(unlisted.isEmpty, "\(Self.page) does not list \(unlisted.joined(separator: ", "))")
    }

    @Test func everyFolderOnThePageExists() throws {
        let text = try #require(PackageFiles.read(Self.page))
        let listed = Self.listedFolders(in: text)
        #expect(listed.contains("Sources/IPDirectCore"),
                "\(Self.page) has no layout block under \"## Layout of the source\"")
        let missing = listed.filter { !PackageFiles.isDirectory($0) }.map { $0 + "/" }
        #expect(missing.isEmpty, "\(Self.page) lists folders that do not exist: \(missing.joined(separator: ", "))")
    }

    @Test func readsTargetsFoldersAndTheirFoldersFromTheBlock() {
        let text = """
            ## Layout of the source

            ```
            Sources/Core/     pure
              HTTP/           heads, chunked
                          bodies (a/b/)
              Resolve/        cache
                Providers/    readers
            Tests/e2e/        end to end
            config/ systemd/  files
              Stray/          not under a target
            ```

            ## Next
            ```
            Sources/Elsewhere/
            ```
            """
        #expect(Self.listedFolders(in: text) == [
            "Sources/Core", "Sources/Core/HTTP", "Sources/Core/Resolve", "Sources/Core/Resolve/Providers",
            "Tests/e2e", "config", "systemd",
        ])
    }
}
