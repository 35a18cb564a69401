import Dispatch
import Glibc
import PathModel
import SystemCalls

/// Watches resolv.conf and reports whether it names a nameserver.
///
/// The file is usually replaced atomically (rename over it) or is a symlink into
/// /run/systemd/resolve, so the watch is on the directories, not on the file: inotify
/// on a file follows the old inode after a rename (inotify(7)).
///
/// Threading: created, started and cancelled on the state queue; the read source
/// runs there too. `@unchecked Sendable` because the Dispatch handler captures `self`.
public final class ResolverWatcher: @unchecked Sendable {
    private let path: String
    private let queue: DispatchQueue
    private let report: @Sendable (Bool) -> Void
    private let log: Logger
    private var descriptor: Int32 = -1
    private var source: DispatchSourceRead?
    private var lastReported: Bool?
    /// Whether the last read failure was logged, so a missing file is said once.
    private var reportedMissing = false

    public init(path: String = "/etc/resolv.conf", queue: DispatchQueue, log: Logger,
                report: @escaping @Sendable (Bool) -> Void) {
        self.path = path
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
        dispatchPrecondition(condition: .onQueue(queue))
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else {
            log.warning("cannot watch \(path): inotify_init1: \(Errno.current)")
            reread()
            return
        }
        descriptor = fd
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB)
        for directory in watchedDirectories() where inotify_add_watch(fd, directory, mask) < 0 {
            log.warning("cannot watch directory \(directory): \(Errno.current)")
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [unowned self] in drainAndReread() }
        source.setCancelHandler { _ = Glibc.close(fd) }
        source.resume()
        self.source = source
        reread()
    }

    public func cancel() {
        dispatchPrecondition(condition: .onQueue(queue))
        source?.cancel()
        source = nil
    }

    /// The directory of the path and, when it is a symlink, of its target.
    private func watchedDirectories() -> [String] {
        var directories = [Self.directory(of: path)]
        if let resolved = realpath(path, nil) {
            let target = String(cString: resolved)
            free(resolved)
            let directory = Self.directory(of: target)
            if !directories.contains(directory) { directories.append(directory) }
        }
        return directories
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func drainAndReread() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Events name files in the watched directories; any of them may be the link or
        // its target, and re-reading a small file is cheaper than matching names.
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        reread()
    }

    private func reread() {
        let configured: Bool
        switch RegularFile.readText(path, maximumBytes: ConfigurationFiles.maximumFileBytes) {
        case .success(let text):
            configured = !ResolverConfiguration.nameservers(in: text).isEmpty
            reportedMissing = false
        case .failure(let problem):
            if !reportedMissing { log.notice("\(path): \(problem); DNS counts as unconfigured") }
            reportedMissing = true
            configured = false
        }
        guard configured != lastReported else { return }
        lastReported = configured
        report(configured)
    }
}
