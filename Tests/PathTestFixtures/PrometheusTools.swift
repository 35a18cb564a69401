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
    /// Debian's python3 with python3-prometheus-client, which parses OpenMetrics.
    public static let pythonClient = PythonModule.probe("prometheus_client.openmetrics.parser",
                                                        package: "python3-prometheus-client")
}
