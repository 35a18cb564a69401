// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// `pathd-probe` running in a namespace, its stderr (its log) kept in a file.
final class ProbeProcess {
    private let child: ChildProcess
    private let stderrPath: String

    /// In `namespace`, or with `mounts` (in that namespace) when given: an /etc of the test's.
    init(in namespace: NetworkNamespace, mounts: PrivateMounts? = nil, socketPath: String, configPath: String,
         stderrPath: String, environment: [String: String] = [:]) throws {
        self.stderrPath = stderrPath
        let arguments = [try BuiltProduct.url("pathd-probe").path, "--socket", socketPath, "--config", configPath]
        let command = mounts?.execArguments(arguments) ?? namespace.execArguments(arguments)
        child = try ChildProcess(command.executable, command.arguments, stderrPath: stderrPath,
                                 environment: environment)
    }

    var stderr: String {
        get throws { try String(contentsOfFile: stderrPath, encoding: .utf8) }
    }

    var isRunning: Bool { child.isRunning }

    /// SIGHUP: read the configuration again and check at once.
    func checkNow() throws { try child.send(SIGHUP) }

    /// Waits until the log holds `text` at least `count` times (the probe logs each result
    /// once pathd has taken it); fails early, with the log, if the probe exits.
    func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(15)) throws {
        try waitUntil("pathd-probe logged \"\(text)\" \(count) time(s)", timeout: timeout,
                      detail: { "; its log:\n\(try stderr)" }) {
            if let end = child.wait(until: Date()) {
                throw HarnessError("pathd-probe exited (\(end)); log:\n\(try stderr)")
            }
            return try stderr.components(separatedBy: text).count - 1 >= count
        }
    }

    /// SIGTERM and wait; SIGKILL (and throw) if it does not stop.
    @discardableResult
    func terminate() throws -> Termination {
        try child.terminate("pathd-probe", detail: { "; log:\n\(try stderr)" })
    }
}

/// scripts/test/silent-dns.py in a namespace: a name server that reads every query and
/// answers none.
final class SilentNameServer {
    private let child: ChildProcess
    private let logPath: String

    init(in namespace: NetworkNamespace, address: String, directory: TemporaryDirectory) throws {
        logPath = directory.path("dns.log")
        let ready = directory.path("dns.ready")
        try "".write(toFile: logPath, atomically: true, encoding: .utf8)
        let command = namespace.execArguments([
            "/usr/bin/python3", Repository.path("scripts/test/silent-dns.py"), "--address", address,
            "--log-file", logPath, "--ready-file", ready,
        ])
        let stderr = directory.path("dns.stderr")
        child = try ChildProcess(command.executable, command.arguments, stderrPath: stderr)
        try waitUntil("the silent name server is bound",
                      detail: { "; stderr: " + (try String(contentsOfFile: stderr, encoding: .utf8)) }) {
            FileManager.default.fileExists(atPath: ready)
        }
    }

    /// One line per query received.
    var queries: [String] {
        get throws { try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").map(String.init) }
    }

    func stop() throws {
        try child.terminate("the silent name server")
    }
}
