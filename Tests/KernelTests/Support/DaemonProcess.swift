// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// The real `pathd` binary running inside a network namespace, its stderr kept in a file for diagnostics.
final class DaemonProcess {
    let socketPath: String
    private let child: ChildProcess
    private let stderrPath: String

    /// Starts `ip netns exec NS [LAUNCHER...] pathd --socket SOCKET ARGUMENTS` with `environment`
    /// added. `ip netns exec` execs the command, so the child's pid is pathd's own and signals
    /// reach it directly — unless a `launcher` (a command that runs pathd, its arguments
    /// following it: a shell setting the umask, strace, a sandbox) goes first and does not
    /// exec it: then the child is the launcher. `pathd` is the built one unless given.
    init(in namespace: NetworkNamespace, socketPath: String, stderrPath: String, arguments: [String] = [],
         launcher: [String] = [], pathd: URL? = nil, environment: [String: String] = [:]) throws {
        self.socketPath = socketPath
        self.stderrPath = stderrPath
        let pathd = try pathd ?? BuiltProduct.url("pathd")
        let command = namespace.execArguments(launcher + [pathd.path, "--socket", socketPath] + arguments)
        child = try ChildProcess(command.executable, command.arguments, stderrPath: stderrPath,
                                 environment: environment)
    }

    /// What pathd wrote to stderr so far.
    var stderr: String {
        get throws { try String(contentsOfFile: stderrPath, encoding: .utf8) }
    }

    var isRunning: Bool { child.isRunning }

    /// The child's pid: pathd's own unless a launcher that does not exec it runs it.
    var pid: pid_t { child.pid }

    /// Sends `signal` to the child.
    func send(_ signal: Int32) throws { try child.send(signal) }

    /// Polls `connect()` until the daemon accepts connections; fails early, with its stderr, if it exits.
    func waitUntilListening(timeout: Duration = .seconds(10)) throws {
        var lastError: Error = HarnessError("never tried")
        try waitUntil("pathd listens on \(socketPath)", timeout: timeout,
                      detail: { " (\(lastError)); stderr:\n\(try stderr)" }) {
            if let end = child.wait(until: Date()) {
                throw HarnessError("pathd exited (\(end)) before listening on \(socketPath); stderr:\n\(try stderr)")
            }
            do {
                try UnixConnection(connectingTo: socketPath).close()
                return true
            } catch {
                lastError = error
                return false
            }
        }
    }

    /// Waits for the daemon to exit by itself (for example because its socket is taken).
    func waitForExit(timeout: Duration = .seconds(10)) throws -> Termination {
        guard let end = child.wait(until: Date().addingTimeInterval(timeout.timeInterval)) else {
            throw HarnessError("pathd still running after \(timeout); stderr:\n\(try stderr)")
        }
        return end
    }

    /// SIGTERM, then waits; SIGKILL if it does not exit in time (and throws, since that is a bug).
    @discardableResult
    func terminate(timeout: Duration = .seconds(10)) throws -> Termination {
        try child.terminate("pathd", timeout: timeout, detail: { "; stderr:\n\(try stderr)" })
    }

    /// SIGKILL and wait: what a crash leaves behind (the socket file stays).
    func kill() throws {
        try child.kill("pathd")
    }
}
