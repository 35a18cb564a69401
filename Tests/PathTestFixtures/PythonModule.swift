// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Whether Debian's python3 (not a pyenv one) imports a module a test needs (its Debian
/// package installed by scripts/install-deps.sh), probed once, when Swift Testing
/// evaluates the test's `.enabled(if:)`. That runs on its pool, where a child process
/// may block only through `BlockingTest.allowingBriefBlock`: called without it, the
/// harness refused to run python3, and the probe, taking the refusal for a missing
/// module, skipped the tests that need seccomp and prometheus_client in every
/// `make test`. A probe that cannot run says so in the skip, with its error.
public struct PythonModule: Sendable {
    public let isAvailable: Bool
    /// Why the tests are skipped (empty when the module imports).
    public let reason: String

    public static func probe(_ module: String, package: String) -> PythonModule {
        BlockingTest.allowingBriefBlock {
            let python = URL(fileURLWithPath: "/usr/bin/python3")
            do {
                let result = try Command.run(python, ["-c", "import \(module)"])
                guard result.termination != .exit(0) else { return PythonModule(isAvailable: true, reason: "") }
                let said = result.stderr.split(separator: "\n").last.map(String.init) ?? "\(result.termination)"
                return PythonModule(isAvailable: false,
                                    reason: "/usr/bin/python3 cannot import \(module) (\(package)): \(said)")
            } catch {
                return PythonModule(isAvailable: false,
                                    reason: "probing /usr/bin/python3 for \(module) failed: \(error)")
            }
        }
    }
}
