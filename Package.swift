// swift-tools-version:6.0
import PackageDescription

/// Hot-path modules trade Swift's dynamic exclusivity checks for speed; their
/// state is owned by one event loop thread, which is what the checks guard.
let hotPathSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
]

let package = Package(
    name: "ipdirect",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "ipdirect", targets: ["ipdirect"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // libevent, OpenSSL and c-ares in ONE module: two modules disagree on glibc's fd_set.
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent_openssl",
            providers: [.apt(["libevent-dev", "libssl-dev", "libc-ares-dev", "libnghttp2-dev"])]
        ),
        // Pure Swift: protocol parsing, configuration, resolution policy. No sockets, no C.
        .target(
            name: "IPDirectCore",
            swiftSettings: hotPathSettings
        ),
        // Everything that touches libevent, OpenSSL or syscalls.
        .target(
            name: "IPDirectIO",
            dependencies: ["CEvent", "IPDirectCore"],
            swiftSettings: hotPathSettings
        ),
        .executableTarget(
            name: "ipdirect",
            dependencies: [
                "IPDirectCore",
                "IPDirectIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer driver for the parsers of untrusted input; see Tests/fuzz/run.
        .executableTarget(
            name: "IPDirectFuzz",
            dependencies: ["IPDirectCore", "IPDirectIO"]
        ),
        .testTarget(
            name: "IPDirectCoreTests",
            dependencies: ["IPDirectCore"]
        ),
        .testTarget(
            name: "IPDirectIOTests",
            dependencies: ["IPDirectIO", "IPDirectCore", "CEvent"]
        ),
    ]
)
