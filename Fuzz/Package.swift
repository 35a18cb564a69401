// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

// libFuzzer targets for pathd's parsers of untrusted text: request lines (any local
// user may connect), JSON in general, and configuration files. A separate package so
// that `swift build` and `swift test` of pathd never see them: an entry point that is
// only `LLVMFuzzerTestOneInput` links only under `--sanitize=fuzzer`.
//
// Build and run through `make fuzz` (debug configuration: in release, swiftc 6.3.1
// adds no coverage instrumentation, and libFuzzer then explores nothing).
// The dependency is named "pathd" explicitly; a path package's identity would
// otherwise be the name of the directory it was checked out into.
let package = Package(
    name: "pathd-fuzz",
    dependencies: [.package(name: "pathd", path: "..")],
    targets: [
        .executableTarget(name: "FuzzRequest", dependencies: [.product(name: "PathProtocol", package: "pathd")]),
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "PathProtocol", package: "pathd")]),
        .executableTarget(name: "FuzzConfig", dependencies: [.product(name: "PathConfiguration", package: "pathd")]),
    ],
    swiftLanguageModes: [.v6]
)
