// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pathd",
    products: [
        .executable(name: "pathd", targets: ["pathd"]),
        .executable(name: "pathctl", targets: ["pathctl"]),
        .library(name: "PathClient", targets: ["PathClient"]),
        // For the fuzz package (Fuzz/Package.swift), which depends on this one by path.
        .library(name: "PathModel", targets: ["PathModel"]),
        .library(name: "PathProtocol", targets: ["PathProtocol"]),
    ],
    targets: [
        // The one C module: libnl-3, libnl-route-3, libsystemd and the kernel headers.
        // One module on purpose: with two, a clean build lost SOCK_* constants in files
        // that did not import the module owning them (TOOLCHAIN-FACTS.md).
        .systemLibrary(
            name: "CLinux",
            pkgConfig: "libnl-route-3.0",
            providers: [.apt(["libnl-3-dev", "libnl-route-3-dev", "libsystemd-dev"])]
        ),
        .target(name: "PathModel"),
        .target(name: "PathProtocol", dependencies: ["PathModel"]),
        .target(name: "Netlink", dependencies: ["CLinux", "PathModel"]),
        .target(name: "PathDaemon", dependencies: ["CLinux", "PathModel", "PathProtocol"]),
        .target(name: "PathClient", dependencies: ["CLinux", "PathModel", "PathProtocol"]),
        // The command-line grammar of both executables, and pathctl's options.
        .target(name: "CommandLineOptions", dependencies: ["PathModel"]),
        .executableTarget(name: "pathd", dependencies: ["CLinux", "CommandLineOptions", "Netlink", "PathDaemon", "PathModel", "PathProtocol"]),
        .executableTarget(name: "pathctl", dependencies: ["CommandLineOptions", "PathClient", "PathModel", "PathProtocol"]),
        .testTarget(name: "PathModelTests", dependencies: ["PathModel"]),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions", "PathModel"]),
        .testTarget(name: "PathProtocolTests", dependencies: ["PathProtocol", "PathModel"], exclude: ["Golden"]),
        .testTarget(name: "PathDaemonTests", dependencies: ["PathDaemon", "PathClient", "PathProtocol", "PathModel"]),
        .testTarget(name: "NetlinkTests", dependencies: ["Netlink", "PathModel"]),
        .testTarget(name: "KernelTests", dependencies: ["pathd", "pathctl", "PathClient", "PathProtocol", "PathModel"]),
    ],
    swiftLanguageModes: [.v6]
)
