// SPDX-License-Identifier: Apache-2.0
import Foundation

/// scripts/test/connectivity-server.py in a namespace: the check URL's server, whose
/// behaviour the test switches through a mode file, and which logs every connection.
public final class CheckServer {
    public static let port = 8080
    public static let expectedBody = "pathd-ok\n"
    public static let loginPage = "<html><body>Hotel Wi-Fi: please log in</body></html>\n"

    public let url: String
    private let child: ChildProcess
    private let modePath: String
    private let logPath: String

    public convenience init(in namespace: NetworkNamespace, address: String, directory: TemporaryDirectory,
                            mode: String = "full") throws {
        try self.init(inNamespace: namespace.name, address: address, directory: directory, mode: mode)
    }

    /// In the network namespace named `namespace` (`ip netns exec`).
    public init(inNamespace namespace: String, address: String, directory: TemporaryDirectory,
                mode: String = "full") throws {
        url = "http://\(address):\(Self.port)/check"
        modePath = directory.path("server.mode")
        logPath = directory.path("server.log")
        let ready = directory.path("server.ready")
        try mode.write(toFile: modePath, atomically: true, encoding: .utf8)
        try "".write(toFile: logPath, atomically: true, encoding: .utf8)
        let arguments = ["netns", "exec", namespace,
            "/usr/bin/python3", Repository.path("scripts/test/connectivity-server.py"), "--address", address,
            "--port", String(Self.port), "--mode-file", modePath, "--log-file", logPath, "--ready-file", ready,
        ]
        let stderr = directory.path("server.stderr")
        child = try ChildProcess(try Command.find("ip"), arguments, stderrPath: stderr)
        try waitUntil("the check server listens", detail: { "; stderr: " + diagnosticText(ofFile: stderr) }) {
            FileManager.default.fileExists(atPath: ready)
        }
    }

    public func set(mode: String) throws {
        try mode.write(toFile: modePath, atomically: true, encoding: .utf8)
    }

    /// The lines of its log: one per accepted connection, one more per proxied request.
    public var log: [String] {
        get throws { try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init) }
    }

    public var connections: Int {
        get throws { try log.filter { $0.hasPrefix("connection from") }.count }
    }

    /// Stops it: nothing listens on the port any more.
    public func stop() throws {
        try child.terminate("the check server")
    }
}
