// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PathModel
import ServiceSupport
import SystemCalls

/// Watches resolv.conf and reports whether DNS has a server to ask: resolv.conf names
/// a nameserver, or, when it names only systemd-resolved's stub, resolved's own
/// resolv.conf (`upstreamPath`) names an upstream one (`ResolverConfiguration`).
///
/// The files are usually replaced atomically (rename over them) or are symlinks into
/// /run/systemd/resolve, so the watch is on the directories, not on the files: inotify
/// on a file follows the old inode after a rename (inotify(7)). The directories are
/// watched again on every read, so a new symlink target, or resolved's directory once
/// the stub is in use, is followed too.
///
/// Threading: started and cancelled on `queue`, where the read source runs. Not
/// `Sendable`: the compiler keeps it with its owner, on that queue.
public final class ResolverWatcher {
    /// The largest resolv.conf read; a larger one is taken as an unreadable one (logged
    /// once). resolv.conf(5) sets no limit; a real one is a few hundred bytes.
    static let maximumFileBytes = 1 << 20

    private let path: String
    private let upstreamPath: String
    private let queue: DispatchQueue
    private let report: @Sendable (Bool) -> Void
    private let log: Logger
    /// The inotify descriptor, while watching; the source's cancel handler closes it.
    private var descriptor: FileDescriptor?
    private var source: DispatchSourceRead?
    private var lastReported: Bool?
    /// The files whose last read failure was logged, so a missing file is said once.
    private var reportedMissing: Set<String> = []
    /// The directories a watch could not be added to, so each is said once.
    private var reportedUnwatchable: Set<String> = []
    /// Whether the last read found only the resolved stub, so the switch is said once.
    private var usingUpstream = false

    public init(path: String, upstreamPath: String,
                queue: DispatchQueue, log: Logger, report: @escaping @Sendable (Bool) -> Void) {
        self.path = path
        self.upstreamPath = upstreamPath
        self.queue = queue
        self.log = log
        self.report = report
    }

    deinit {
        assert(source == nil, "ResolverWatcher was not cancelled")
    }

    /// Reads the file once and starts watching. A watch that cannot be set up is logged
    /// (DNS then stays as first read) rather than fatal: it is not the main job.
    public func start() {
        let raw = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard raw >= 0 else {
            log.warning("cannot watch \(path): inotify_init1: \(Errno.current)")
            reread()
            return
        }
        let fd = FileDescriptor(rawValue: raw)
        descriptor = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
        source.setEventHandler { [unowned self] in drainAndReread() }
        source.setCancelHandler { fd.close() }
        source.resume()
        self.source = source
        reread()
    }

    public func cancel() {
        source?.cancel()
        source = nil
    }

    /// Watches the directories of `file` (see `directories(of:)`). Adding a watch that
    /// exists changes nothing (inotify_add_watch(2)); one that fails is logged once.
    private func watchDirectories(of file: String) {
        guard let descriptor else { return }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB)
        for directory in Self.directories(of: file) {
            if inotify_add_watch(descriptor.rawValue, directory, mask) >= 0 {
                reportedUnwatchable.remove(directory)
            } else if reportedUnwatchable.insert(directory).inserted {
                log.warning("cannot watch directory \(directory): \(Errno.current)")
            }
        }
    }

    /// The directory of the path and, when it is a symlink, of its target.
    private static func directories(of path: String) -> [String] {
        var directories = [splitPath(path).directory]
        if let resolved = realpath(path, nil) {
            let target = String(cString: resolved)
            free(resolved)
            let directory = splitPath(target).directory
            if !directories.contains(directory) { directories.append(directory) }
        }
        return directories
    }

    private func drainAndReread() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Events name files in the watched directories; any of them may be the link or
        // its target, and re-reading a small file is cheaper than matching names.
        if let descriptor {
            while buffer.withUnsafeMutableBytes({ read(descriptor.rawValue, $0.baseAddress, $0.count) }) > 0 {}
        }
        reread()
    }

    private func reread() {
        watchDirectories(of: path)
        let configured: Bool
        if let nameservers = nameservers(in: path, why: "DNS counts as unconfigured") {
            let onlyStub = ResolverConfiguration.namesOnlyResolvedStub(nameservers)
            if onlyStub != usingUpstream {
                usingUpstream = onlyStub
                log.info(onlyStub
                         ? "\(path) names only the systemd-resolved stub; its upstream servers are read from "
                           + upstreamPath
                         : "\(path) names a nameserver other than the systemd-resolved stub")
            }
            var upstream: [String]?
            if onlyStub {
                watchDirectories(of: upstreamPath)
                let why = "DNS counts as unconfigured while \(path) names only the systemd-resolved stub"
                upstream = self.nameservers(in: upstreamPath, why: why)
            }
            configured = ResolverConfiguration.isConfigured(nameservers: nameservers, upstream: upstream)
        } else {
            configured = false
        }
        guard configured != lastReported else { return }
        lastReported = configured
        report(configured)
    }

    /// The nameservers of `file`; nil when it cannot be read, which is logged once
    /// (with `why`) until it can be read again.
    private func nameservers(in file: String, why: String) -> [String]? {
        switch RegularFile.readText(file, maximumBytes: Self.maximumFileBytes) {
        case .success(let text):
            reportedMissing.remove(file)
            return ResolverConfiguration.nameservers(in: text)
        case .failure(let problem):
            if reportedMissing.insert(file).inserted { log.notice("\(file): \(problem); \(why)") }
            return nil
        }
    }
}
