// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pathd",
    products: [
        .executable(name: "pathd", targets: ["pathd"]),
        .executable(name: "pathctl", targets: ["pathctl"]),
        // What Swift programs import: NWPathMonitor and PathMonitor, served by pathd or,
        // when no daemon answers, evaluated in-process (links libnl-3 and libnl-route-3).
        .library(name: "PathClient", targets: ["PathClient"]),
        // pathd's socket only: no in-process engine, links neither libnl nor libsystemd.
        .library(name: "PathSocketClient", targets: ["PathSocketClient"]),
        // For the fuzz package (Fuzz/Package.swift), which depends on this one by path.
        .library(name: "PathModel", targets: ["PathModel"]),
        .library(name: "PathProtocol", targets: ["PathProtocol"]),
    ],
    targets: [
        // libnl-3, libnl-route-3 and the kernel headers, for the Netlink module only.
        .systemLibrary(
            name: "CLinux",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev"])]
        ),
        // sd-daemon(3), for the daemon only.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // Header-only declarations of the GNU system calls Glibc does not import.
        .systemLibrary(name: "CSystemCalls"),
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),
        .target(name: "PathModel"),
        .target(name: "PathProtocol", dependencies: ["PathModel"]),
        .target(name: "Netlink", dependencies: ["CLinux", "PathModel"]),
        .target(name: "PathEngine", dependencies: ["PathModel", "SystemCalls"]),
        .target(name: "PathDaemon", dependencies: ["CSystemd", "PathEngine", "PathModel", "PathProtocol", "SystemCalls"]),
        .target(name: "PathSocketClient", dependencies: ["PathModel", "PathProtocol", "SystemCalls"]),
        .target(name: "PathClient", dependencies: ["Netlink", "PathEngine", "PathModel", "PathProtocol", "PathSocketClient", "SystemCalls"]),
        // The command-line grammar of both executables, and pathctl's options.
        .target(name: "CommandLineOptions", dependencies: ["PathModel", "PathProtocol"]),
        .executableTarget(name: "pathd", dependencies: ["CommandLineOptions", "CSystemd", "Netlink", "PathDaemon", "PathEngine",
                                                        "PathModel", "PathProtocol", "SystemCalls"]),
        .executableTarget(name: "pathctl", dependencies: ["CommandLineOptions", "PathSocketClient", "PathModel", "PathProtocol",
                                                          "SystemCalls"]),
        // Examples/: built by `make test`, run by the kernel tests.
        .executableTarget(name: "OfflineBanner", dependencies: ["PathClient"], path: "Examples/OfflineBanner"),
        .testTarget(name: "PathModelTests", dependencies: ["PathModel"]),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions", "PathModel", "PathProtocol"]),
        .testTarget(name: "PathProtocolTests", dependencies: ["PathProtocol", "PathModel"], exclude: ["Golden"]),
        .testTarget(name: "PathDaemonTests", dependencies: ["PathDaemon", "PathEngine", "PathClient", "PathSocketClient", "PathProtocol", "PathModel", "SystemCalls"]),
        .testTarget(name: "NetlinkTests", dependencies: ["Netlink", "PathModel"]),
        .testTarget(name: "KernelTests", dependencies: ["pathd", "pathctl", "PathClient", "PathSocketClient", "PathProtocol", "PathModel"]),
    ],
    swiftLanguageModes: [.v6]
)
