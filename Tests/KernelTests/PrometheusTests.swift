// SPDX-License-Identifier: Apache-2.0
import Foundation
import PathProtocol
import PathTestFixtures
import Testing

extension KernelTests {
    @Suite("metrics with the real Prometheus tools",
           .enabled(if: PrometheusTools.promtool != nil, "promtool is not installed (package prometheus)"), .serialized)
    struct MetricsTools {
        @Test("""
            promtool check metrics reports nothing for pathctl metrics --format prometheus; OpenMetrics parses as such
            """,
              .enabled(if: PrometheusTools.pythonClient.isAvailable, "\(PrometheusTools.pythonClient.reason)"))
        func checkMetrics() throws {
            try withVethTopology { topology in
                let subscriber = try topology.startSatisfied()
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied(reason: "noRoute"))
                let pathctl = try BuiltProduct.url("pathctl")
                let text = try Command.check(pathctl,
                                             ["--socket", topology.socketPath, "metrics", "--format", "prometheus"])
                let file = topology.directory.path("metrics.prom")
                try text.write(toFile: file, atomically: true, encoding: .utf8)
                let check = try Command.run(URL(fileURLWithPath: "/bin/sh"),
                                            ["-c", "\"$0\" check metrics < \"$1\"",
                                             try #require(PrometheusTools.promtool).path, file])
                #expect(check.termination == .exit(0) && check.stdout.isEmpty && check.stderr.isEmpty,
                        "promtool: \(check.stdout)\(check.stderr)")
                #expect(text.contains("pathd_path_unsatisfied_reason{pathd_path_unsatisfied_reason=\"noRoute\"} 1\n"),
                        "\(text)")

                let openMetrics = try Command.check(pathctl, ["--socket", topology.socketPath, "metrics"])
                let parse = """
                    import sys
                    from prometheus_client.openmetrics.parser import text_string_to_metric_families
                    for family in text_string_to_metric_families(sys.stdin.read()):
                        print(family.name, family.type, len(family.samples))
                    """
                let omFile = topology.directory.path("metrics.om")
                try openMetrics.write(toFile: omFile, atomically: true, encoding: .utf8)
                let parsed = try Command.run(URL(fileURLWithPath: "/bin/sh"),
                                             ["-c", "/usr/bin/python3 -c \"$0\" < \"$1\"", parse, omFile])
                #expect(parsed.termination == .exit(0), "OpenMetrics parser: \(parsed.stderr)")
                #expect(parsed.stdout.contains("pathd_path_status stateset 3\n"), "\(parsed.stdout)")
                #expect(parsed.stdout.contains("pathd_path_changes counter 1\n"), "\(parsed.stdout)")
                #expect(parsed.stdout.contains("pathd_build info 1\n"), "\(parsed.stdout)")
            }
        }

        @Test("[Watch] in pathd.conf: pathd_route_* follow the route, promtool accepts them, a reload drops them")
        func watchedRoutes() throws {
            try withVethTopology { topology in
                let config = topology.directory.path("pathd.conf")
                try "[Watch]\nDestination=192.0.2.10 localhost\n".write(toFile: config, atomically: true,
                                                                       encoding: .utf8)
                try topology.startDaemon(arguments: ["--config", config])
                let pathctl = try BuiltProduct.url("pathctl")
                var text = ""
                func metricsShow(_ fragment: String) throws {
                    try waitUntil("the metrics show \(fragment)", detail: { ":\n\(text)" }) {
                        text = try Command.check(pathctl, ["--socket", topology.socketPath, "metrics", "--format",
                                                           "prometheus"])
                        return text.contains(fragment)
                    }
                }
                try metricsShow(#"pathd_route_usable{host="192.0.2.10",destination="192.0.2.10"} 1"#)
                #expect(text.contains(#"pathd_route_info{host="192.0.2.10",destination="192.0.2.10",interface="vA","#
                    + #"reason=""} 1"#), "\(text)")
                try metricsShow(#"pathd_route_usable{host="localhost",destination="127.0.0.1"} 1"#)
                try topology.a.ip("route", "add", "unreachable", "192.0.2.0/24")
                try metricsShow(#"pathd_route_info{host="192.0.2.10",destination="192.0.2.10",interface="","#
                    + #"reason="routeRejects"} 1"#)
                #expect(text.contains(#"pathd_route_usable{host="192.0.2.10",destination="192.0.2.10"} 0"#))
                let history = try Command.check(pathctl, ["--socket", topology.socketPath, "history", "--route",
                                                          "192.0.2.10"])
                #expect(history.hasPrefix("Route to 192.0.2.10:\n"), "\(history)")
                #expect(history.contains("the route rejects traffic"), "\(history)")
                let file = topology.directory.path("watch.prom")
                try text.write(toFile: file, atomically: true, encoding: .utf8)
                let promtool = try #require(PrometheusTools.promtool).path
                let check = try Command.run(URL(fileURLWithPath: "/bin/sh"),
                                            ["-c", "\"$0\" check metrics < \"$1\"", promtool, file])
                #expect(check.termination == .exit(0) && check.stdout.isEmpty && check.stderr.isEmpty,
                        "promtool: \(check.stdout)\(check.stderr)")
                try "".write(toFile: config, atomically: true, encoding: .utf8)
                try Command.check(pathctl, ["--socket", topology.socketPath, "reload"])
                text = try Command.check(pathctl, ["--socket", topology.socketPath, "metrics", "--format",
                                                   "prometheus"])
                #expect(!text.contains("pathd_route_usable{"), "\(text)")
            }
        }

        @Test("node_exporter serves the textfile, Prometheus scrapes it, and PromQL sees the route go and come back",
              .enabled(if: PrometheusTools.prometheus != nil && PrometheusTools.nodeExporter != nil,
                       "prometheus or prometheus-node-exporter is not installed"))
        func scrapedByPrometheus() throws {
            try withVethTopology { topology in
                let directory = topology.directory
                // As documented: pathd writes in its own directory, linked into the textfile directory.
                let run = directory.path("run-pathd-metrics")
                let textfiles = directory.path("node-exporter")
                try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false)
                try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: false)
                try FileManager.default.createSymbolicLink(atPath: textfiles + "/pathd.prom",
                                                           withDestinationPath: run + "/pathd.prom")
                let subscriber = try topology.startSubscribed(arguments: ["--metrics-file", run + "/pathd.prom"],
                                                              waitingFor: "satisfied through vA",
                                                              PathLine.satisfied(through: "vA"))

                let exporter = try Self.launch(in: topology, [
                    try #require(PrometheusTools.nodeExporter).path, "--web.listen-address=127.0.0.1:9100",
                    "--collector.disable-defaults", "--collector.textfile",
                    "--collector.textfile.directory=\(textfiles)",
                ], stderrPath: directory.path("node-exporter.stderr"))
                defer { teardown("stop node_exporter") { try exporter.terminate("node_exporter") } }
                let configuration = directory.path("prometheus.yml")
                try """
                    global:
                      scrape_interval: 250ms
                      scrape_timeout: 200ms
                    scrape_configs:
                      - job_name: node
                        static_configs:
                          - targets: ['127.0.0.1:9100']
                    """.write(toFile: configuration, atomically: true, encoding: .utf8)
                let prometheus = try Self.launch(in: topology, [
                    try #require(PrometheusTools.prometheus).path, "--config.file=\(configuration)",
                    "--storage.tsdb.path=\(directory.path("tsdb"))", "--web.listen-address=127.0.0.1:9090",
                ], stderrPath: directory.path("prometheus.stderr"))
                defer { teardown("stop prometheus") { try prometheus.terminate("prometheus") } }

                let promtool = try #require(PrometheusTools.promtool).path
                /// The values an instant query returns now, through Prometheus's HTTP API.
                func query(_ expression: String) throws -> [Double] {
                    let command = topology.a.execArguments([promtool, "query", "instant", "-o", "json",
                                                           "http://127.0.0.1:9090", expression])
                    let result = try Command.run(command.executable, command.arguments)
                    guard result.termination == .exit(0),
                          let vector = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                            as? [[String: Any]] else {
                        return []  // not up yet
                    }
                    return vector.compactMap { ($0["value"] as? [Any])?.last as? String }.compactMap(Double.init)
                }
                func waitForQuery(_ description: String, _ expression: String) throws {
                    try waitUntil(description, timeout: .seconds(30), detail: {
                        let log = try String(contentsOfFile: directory.path("prometheus.stderr"), encoding: .utf8)
                        return "; prometheus: \(log.suffix(2000))"
                    }) { !(try query(expression)).isEmpty }
                }

                try waitForQuery("Prometheus sees the path satisfied",
                                 #"pathd_path_status{pathd_path_status="satisfied"} == 1"#)
                let before = try query("pathd_path_changes_total").first ?? -1
                try topology.deleteDefaultRoute()
                try subscriber.waitFor("unsatisfied", PathLine.unsatisfied(reason: "noRoute"))
                try waitForQuery("Prometheus sees the path unsatisfied for lack of a route",
                                 #"pathd_path_status{pathd_path_status="unsatisfied"} == 1 and on() "# +
                                 #"pathd_path_unsatisfied_reason{pathd_path_unsatisfied_reason="noRoute"} == 1"#)
                try topology.addDefaultRoute()
                try subscriber.waitFor("satisfied again", PathLine.satisfied(through: "vA"))
                try waitForQuery("Prometheus sees the path satisfied again, two changes later",
                                 #"pathd_path_status{pathd_path_status="satisfied"} == 1 and on() "# +
                                 #"pathd_path_changes_total >= \#(before + 2)"#)
                #expect(try query(#"max_over_time(pathd_path_status{pathd_path_status="unsatisfied"}[5m])"#) == [1])
            }
        }

        /// Starts `command` inside namespace A (it dies with the namespace at the latest).
        static func launch(in topology: VethTopology, _ command: [String], stderrPath: String) throws -> ChildProcess {
            let exec = topology.a.execArguments(command)
            return try ChildProcess(exec.executable, exec.arguments, stderrPath: stderrPath)
        }
    }
}
