// swift-tools-version:6.0
import PackageDescription

/// The I/O module trades Swift's dynamic exclusivity checks for speed: its session and connection
/// objects are owned by one event loop thread, which is what the checks guard. Measured with callgrind
/// on 2,000 pooled keep-alive requests through one worker, the checks cost 2.3k of 54.9k instructions
/// per request (4 %) in IPDirectIO and nothing measurable (11 instructions) in IPDirectCore, which
/// therefore keeps them, static and dynamic, except on the fields of the session's `Exchange` object
/// (`@exclusivity(unchecked)` there saves 2.4k instructions per request).
let eventLoopModuleSettings: [SwiftSetting] = [
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
        // libevent, OpenSSL, c-ares, nghttp2 and libcrypt in ONE module: two modules disagree on glibc's fd_set.
        .systemLibrary(
            name: "CEvent",
            pkgConfig: "libevent_openssl",
            providers: [.apt(["libevent-dev", "libssl-dev", "libc-ares-dev", "libnghttp2-dev", "libcrypt-dev"])]
        ),
        // Pure Swift: protocol parsing, configuration, resolution policy. No sockets, no C.
        .target(
            name: "IPDirectCore"
        ),
        // Everything that touches libevent, OpenSSL or syscalls.
        .target(
            name: "IPDirectIO",
            dependencies: ["CEvent", "IPDirectCore"],
            swiftSettings: eventLoopModuleSettings
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
