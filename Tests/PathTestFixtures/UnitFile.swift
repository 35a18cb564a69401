// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What the systemd units in packaging/systemd run, read from the files themselves.
public enum UnitFile {
    /// The value of the first `key=` line of `unit`.
    public static func value(_ key: String, in unit: String) throws -> String {
        let text = try Repository.read("packaging/systemd/\(unit)")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("\(key)=") }) else {
            throw HarnessError("no \(key)= in packaging/systemd/\(unit)")
        }
        return String(line.dropFirst(key.count + 1))
    }

    /// The value of the first `key=` line of `unit`, nil when it has none.
    public static func optionalValue(_ key: String, in unit: String) throws -> String? {
        let text = try Repository.read("packaging/systemd/\(unit)")
        return text.split(separator: "\n").first { $0.hasPrefix("\(key)=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// The service units of packaging/systemd.
    public static func services() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.path("packaging/systemd"))
            .filter { $0.hasSuffix(".service") }.sorted()
    }

    /// A command line of a unit (`ExecReload=` of pathd.service…), its program the built
    /// one instead of /usr/local/bin's and the socket `socketPath` instead of pathd.socket's;
    /// for a template, `%i` and `%I` are `instance` (an instance name with nothing systemd
    /// escapes, which the two specifiers then give alike).
    public static func command(_ key: String, in unit: String, socketPath: String,
                        instance: String? = nil) throws -> (URL, [String]) {
        var words = try value(key, in: unit).split(separator: " ").map(String.init)
        if let instance {
            words = words.map {
                $0.replacingOccurrences(of: "%I", with: instance).replacingOccurrences(of: "%i", with: instance)
            }
        }
        let installed = "/usr/local/bin/"
        guard let program = words.first, program.hasPrefix(installed) else {
            throw HarnessError("\(key)= of \(unit) does not run a program from \(installed): \(words)")
        }
        let systemSocket = try value("ListenStream", in: "pathd.socket")
        guard let flag = words.firstIndex(of: "--socket"), words.indices.contains(flag + 1),
              words[flag + 1] == systemSocket else {
            throw HarnessError("\(key)= of \(unit) does not name pathd.socket's \(systemSocket): \(words)")
        }
        words[flag + 1] = socketPath
        return (try BuiltProduct.url(String(program.dropFirst(installed.count))), Array(words.dropFirst()))
    }
}
