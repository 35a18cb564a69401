// SPDX-License-Identifier: Apache-2.0
import PathDaemon
import PathModel
import PathConfiguration
import Synchronization

/// What the harness's reloader answers next, set by the test.
public final class ReloadScript: Sendable {
    private let next = Mutex<ConfigurationReload>(.invalid(errors: ["not set"], warnings: []))
    private let calls = Mutex(0)

    public init() {}

    /// A configuration that makes eth0 expensive: the change the reload tests load.
    public static func expensiveEth0() -> Configuration {
        var rule = InterfaceSettings(stated: .init(isExpensive: true), origin: "pathd.conf:1")
        rule.match.name.append("eth*")
        return Configuration(policy: Policy(rules: [rule]))
    }

    public func answer(_ outcome: ConfigurationReload) { next.withLock { $0 = outcome } }
    /// Answers `configuration`, valid and without warnings.
    public func answer(valid configuration: Configuration) { answer(.valid(configuration, warnings: [])) }
    public var callCount: Int { calls.withLock { $0 } }

    public func install(on harness: DaemonHarness) {
        harness.queue.sync {
            harness.service.setConfigurationReloader { [self] in
                calls.withLock { $0 += 1 }
                return next.withLock { $0 }
            }
        }
    }
}
