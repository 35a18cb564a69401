// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The tools the Prometheus tests run, from Debian's packages (scripts/install-deps.sh installs them).
public enum PrometheusTools {
    /// The tool on PATH or in the sbin directories, nil when it is not installed (the test is then skipped, saying so).
    public static func find(_ name: String) -> URL? {
        do {
            return try Command.find(name)
        } catch {
            return nil
        }
    }

    public static let promtool = find("promtool")
    public static let prometheus = find("prometheus")
    public static let nodeExporter = find("prometheus-node-exporter")
    /// Debian's python3 (not a pyenv one), which sees python3-prometheus-client.
    public static let hasPythonClient: Bool = {
        do {
            return try Command.run(URL(fileURLWithPath: "/usr/bin/python3"),
                                   ["-c", "import prometheus_client.openmetrics.parser"]).termination == .exit(0)
        } catch {
            return false
        }
    }()
}
