// SPDX-License-Identifier: Apache-2.0
import Glibc
import PathModel
import PathSettings
import SystemCalls

/// Finds and reads pathd.conf and its drop-ins for `Configuration.parse`, which does
/// everything else: the main file, then `<main>.d/*.conf` in lexical (byte) order.
///
/// A missing main file is fine when it is the default (`isMainRequired` false: the
/// built-in defaults apply) and an error when named with `--config`. A missing drop-in
/// directory is fine. A file that cannot be read, is not a regular file (a FIFO is
/// refused without blocking: `RegularFile`) or is larger than `maximumFileBytes` is an
/// error naming it.
public struct ConfigurationFiles: Hashable, Sendable {
    public static let defaultPath = "/etc/pathd/pathd.conf"
    public static let maximumFileBytes = 1 << 20
    public static let maximumDropIns = 256

    public var mainPath: String
    public var isMainRequired: Bool

    public init(mainPath: String = ConfigurationFiles.defaultPath, isMainRequired: Bool = false) {
        self.mainPath = mainPath
        self.isMainRequired = isMainRequired
    }

    /// The files a `--config` option names: that file, which must then exist, or the
    /// default (which may not) without one. pathd and pathd-probe read the same way.
    public init(configOption path: String?) {
        if let path {
            self.init(mainPath: path, isMainRequired: true)
        } else {
            self.init()
        }
    }

    public var dropInDirectory: String { mainPath + ".d" }

    /// Reads and parses every file; read failures come first among the diagnostics.
    public func load(base: Configuration = .builtIn) -> (result: ConfigurationResult, files: [String]) {
        let (sources, problems) = read()
        var result = Configuration.parse(sources, base: base)
        result.diagnostics = problems + result.diagnostics
        return (result, sources.map(\.name))
    }

    /// The files that exist, in the order they apply, and diagnostics for those that
    /// could not be read.
    public func read() -> (sources: [ConfigurationSource], diagnostics: [ConfigurationDiagnostic]) {
        var sources: [ConfigurationSource] = []
        var diagnostics: [ConfigurationDiagnostic] = []
        func add(_ path: String, required: Bool) {
            switch RegularFile.readText(path, maximumBytes: Self.maximumFileBytes) {
            case .success(let text):
                sources.append(ConfigurationSource(name: path, text: text))
            case .failure(let problem):
                if problem.isMissing && !required { return }
                diagnostics.append(ConfigurationDiagnostic(.error, file: path, line: 0, problem.description))
            }
        }
        add(mainPath, required: isMainRequired)
        switch Self.dropIns(in: dropInDirectory) {
        case .success(let names):
            if names.count > Self.maximumDropIns {
                diagnostics.append(ConfigurationDiagnostic(.error, file: dropInDirectory, line: 0,
                                                           "holds more than \(Self.maximumDropIns) .conf files"))
            }
            for name in names.prefix(Self.maximumDropIns) { add(dropInDirectory + "/" + name, required: true) }
        case .failure(let problem):
            if !problem.isMissing {
                diagnostics.append(ConfigurationDiagnostic(.error, file: dropInDirectory, line: 0, problem.description))
            }
        }
        return (sources, diagnostics)
    }

    /// Names of `*.conf` entries (not hidden), in byte order.
    static func dropIns(in directory: String) -> Result<[String], RegularFile.ReadError> {
        guard let handle = opendir(directory) else {
            let error = Errno.current
            return .failure(RegularFile.ReadError("cannot open the directory: \(error)",
                                                  isMissing: error == .noSuchFile))
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(".conf") && !name.hasPrefix(".") { names.append(name) }
            // Bounded however many entries the directory holds.
            if names.count > maximumDropIns { break }
        }
        return .success(names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }
}
