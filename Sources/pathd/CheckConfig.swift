// SPDX-License-Identifier: Apache-2.0
import SystemCalls
import PathModel
import PathConfiguration

/// `pathd --check-config`: reads the files as a start would, prints every diagnostic to
/// stderr (file:line) and, when valid, the effective configuration to stdout in INI
/// form. Exit status 0 when valid (warnings allowed), 1 otherwise. Touches no socket.
enum CheckConfig {
    static func run(_ options: Options) -> Int32 {
        let files = options.configurationFiles
        let (result, read) = files.load()
        // The network key is read as a start reads it, once the files are valid.
        let (keyed, keyProblem) = result.isValid ? options.applied(to: result.configuration).readingNetworkKey()
            : (result.configuration, nil)
        let diagnostics = result.diagnostics + (keyProblem.map { [$0] } ?? [])
        for diagnostic in diagnostics {
            writeError("\(diagnostic.severity.rawValue): \(diagnostic)\n")
        }
        let errors = diagnostics.errors.count
        guard errors == 0 else {
            writeError("pathd: configuration is invalid (\(errors) error\(errors == 1 ? "" : "s"))\n")
            return 1
        }
        var effective = keyed
        if effective.daemon.socketPath == nil {
            // A start would fail here too (unless socket-activated, which this cannot know).
            do {
                effective.daemon.socketPath = try ProcessEnvironment.defaultSocketPath()
            } catch {
                writeError("error: \(error)\npathd: no socket to listen on; a start would fail\n")
                return 1
            }
        }
        var header = ["Effective configuration of pathd: built-in defaults, then the files, then the command line."]
        header.append(read.isEmpty ? "Files: none (\(files.mainPath) is absent; built-in defaults)"
                                   : "Files: " + read.joined(separator: ", "))
        do {
            try FileDescriptor.standardOutput.writeAll(effective.renderedINI(header: header).utf8)
        } catch {
            writeError("pathd: cannot write the configuration to standard output: \(error)\n")
            return 1
        }
        return 0
    }

    private static func writeError(_ text: String) {
        // Nowhere left to report a failure to write to stderr.
        do { try FileDescriptor.standardError.writeAll(text.utf8) } catch {}
    }
}
