// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathTestFixtures

/// A mount namespace of its own inside a network namespace, held open by a sleeping
/// process: there a test mounts what pathd and its clients should see (an overlay that
/// adds files to /etc, an empty tmpfs over /run) without touching the host's mounts.
/// Commands run inside with `nsenter --target HOLDER --mount --net`, so they also see
/// the /sys that `ip netns exec` mounted for the network namespace.
///
/// Everything started inside runs in the network namespace, whose removal kills it.
final class PrivateMounts {
    let holderID: pid_t
    private let holder: ChildProcess
    private let nsenter: URL
    private let mount: URL

    /// `unsharing`: the namespaces of its own, as `unshare` names them (a mount
    /// namespace always; `--uts` too for programs that set the hostname).
    init(in namespace: NetworkNamespace, stderrPath: String, unsharing: [String] = ["--mount"]) throws {
        let unshare = try Command.find("unshare")
        let sleep = try Command.find("sleep")
        nsenter = try Command.find("nsenter")
        mount = try Command.find("mount")
        let command = namespace.execArguments([unshare.path] + unsharing + ["--propagation", "private",
                                                                            sleep.path, "infinity"])
        holder = try ChildProcess(command.executable, command.arguments, stderrPath: stderrPath)
        holderID = holder.pid
        // Until `unshare` has run and exec'd `sleep`, the holder's mount namespace is ip's
        // (or the host's): a mount entered then would land there.
        let sleepBinary = sleep.resolvingSymlinksInPath().path
        let hostMounts = try Self.link("/proc/self/ns/mnt")
        try waitUntil("the holder (pid \(holderID)) has a mount namespace of its own") {
            guard holder.isRunning else { throw HarnessError("the mount namespace holder exited") }
            // Unreadable links mean "not yet": the holder is still being exec'd.
            let executable = try? Self.link("/proc/\(holderID)/exe")
            let mounts = try? Self.link("/proc/\(holderID)/ns/mnt")
            return executable == sleepBinary && mounts != nil && mounts != hostMounts
        }
    }

    /// The arguments that run `command` inside.
    func execArguments(_ command: [String]) -> (executable: URL, arguments: [String]) {
        (nsenter, ["--target", String(holderID), "--mount", "--net", "--"] + command)
    }

    /// Runs `command` inside and returns its output; throws with stderr on failure.
    @discardableResult
    func run(_ command: [String]) throws -> String {
        let (executable, arguments) = execArguments(command)
        return try Command.check(executable, arguments)
    }

    /// Lays `files` (paths relative to /etc, and their contents) over /etc with a
    /// read-only overlay, `directory` as its top layer.
    func overlayEtc(_ files: [String: String], directory: String) throws {
        // The top layer's root becomes /etc: each directory 0755, whatever the umask.
        try Self.write(files, under: directory)
        try run([mount.path, "-t", "overlay", "overlay", "-o", "lowerdir=\(directory):/etc", "/etc"])
    }

    /// Lays `files` (paths relative to `target`, and their contents, mode 0644) over the
    /// directory `target` with a writable overlay whose upper layer and work directory
    /// are under `directory`: what is written there lands in the test's directory.
    func overlay(_ target: String, adding files: [String: String], directory: String) throws {
        let upper = directory + "/upper"
        let work = directory + "/work"
        for made in [directory, work] { try makeDirectory(made) }
        try Self.write(files, under: upper)
        try run([mount.path, "-t", "overlay", "overlay", "-o", "lowerdir=\(target),upperdir=\(upper),workdir=\(work)",
                 target])
    }

    /// An empty tmpfs (mode 0755) over /run: /run/pathd is then the test's alone.
    func emptyRun() throws {
        try run([mount.path, "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"])
    }

    /// Starts pathd inside with `arguments` and waits until its log says it listens.
    ///
    /// With a service's umask, 022 (systemd's default), not the test runner's of the
    /// moment: daemon tests in this process bind sockets under umask 0111 for an
    /// instant, and a pathd spawned then made /run/pathd without search permission.
    func startDaemon(_ arguments: [String] = [], stderrPath: String,
                     environment: [String: String] = [:]) throws -> ChildProcess {
        let pathd = try BuiltProduct.url("pathd").path
        let (executable, nsenterArguments) = execArguments(["/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\"", pathd]
                                                           + arguments)
        let daemon = try ChildProcess(executable, nsenterArguments, stderrPath: stderrPath, environment: environment)
        // The file exists from here on: posix_spawn opens it (O_CREAT) in the child before
        // the exec, and glibc's posix_spawn returns only after that exec, reporting a failed
        // open as its own error. So a read error is a real one, not "nothing logged yet".
        let log = { try String(contentsOfFile: stderrPath, encoding: .utf8) }
        try waitUntil("pathd \(arguments.joined(separator: " ")) listens", detail: { "; stderr:\n\(try log())" }) {
            if let end = daemon.wait(until: Date()) {
                throw HarnessError("pathd exited (\(end)) before listening; stderr:\n\(try log())")
            }
            return try log().contains("listening on ")
        }
        return daemon
    }

    /// Writes `files` (paths relative to `directory`, made with its missing parents, and
    /// their contents) with modes 0755 and 0644, whatever the umask of the moment (the
    /// daemon tests narrow it around bind(2)).
    private static func write(_ files: [String: String], under directory: String) throws {
        if !FileManager.default.fileExists(atPath: directory) { try makeDirectory(directory) }
        for (path, contents) in files {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
            var missing: [String] = []
            var parent = url.deletingLastPathComponent()
            while !FileManager.default.fileExists(atPath: parent.path) {
                missing.append(parent.path)
                parent = parent.deletingLastPathComponent()
            }
            for made in missing.reversed() { try makeDirectory(made) }
            try contents.write(to: url, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        }
    }

    /// Ends the holder; what still runs inside keeps the namespace until it exits.
    func stop() throws {
        try holder.send(SIGKILL)
    }

    private static func link(_ path: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: path)
    }
}
