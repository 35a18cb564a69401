// SPDX-License-Identifier: Apache-2.0
import PathProtocol
import Testing

@Suite("metrics exposition")
struct ExpositionTests {
    static let families: [MetricFamily] = [
        .stateSet("pathd_path_status", help: "Status.", states: ["satisfied", "unsatisfied"], active: ["unsatisfied"]),
        .counter("pathd_path_changes", help: "Changes.", value: 3),
        .counter("pathd_path_unsatisfied_seconds", unit: "seconds", help: "Time.", value: 0.25),
        .gauge("pathd_interface_usable", help: "Usable.", [MetricSample([MetricLabel("interface", "eth0")], value: 1)]),
        .info("pathd_build", help: "Build.", labels: [MetricLabel("version", "0.1.0")]),
    ]

    @Test("OpenMetrics: native state set, counter family without _total, UNIT, info, # EOF last")
    func openMetrics() {
        #expect(Exposition.render(Self.families, as: .openMetrics) == """
            # TYPE pathd_path_status stateset
            # HELP pathd_path_status Status.
            pathd_path_status{pathd_path_status="satisfied"} 0
            pathd_path_status{pathd_path_status="unsatisfied"} 1
            # TYPE pathd_path_changes counter
            # HELP pathd_path_changes Changes.
            pathd_path_changes_total 3
            # TYPE pathd_path_unsatisfied_seconds counter
            # UNIT pathd_path_unsatisfied_seconds seconds
            # HELP pathd_path_unsatisfied_seconds Time.
            pathd_path_unsatisfied_seconds_total 0.25
            # TYPE pathd_interface_usable gauge
            # HELP pathd_interface_usable Usable.
            pathd_interface_usable{interface="eth0"} 1
            # TYPE pathd_build info
            # HELP pathd_build Build.
            pathd_build_info{version="0.1.0"} 1
            # EOF

            """)
    }

    @Test("Prometheus 0.0.4: the same samples; state sets and info are gauges, a counter's TYPE names its _total")
    func prometheus() {
        #expect(Exposition.render(Self.families, as: .prometheus) == """
            # HELP pathd_path_status Status.
            # TYPE pathd_path_status gauge
            pathd_path_status{pathd_path_status="satisfied"} 0
            pathd_path_status{pathd_path_status="unsatisfied"} 1
            # HELP pathd_path_changes_total Changes.
            # TYPE pathd_path_changes_total counter
            pathd_path_changes_total 3
            # HELP pathd_path_unsatisfied_seconds_total Time.
            # TYPE pathd_path_unsatisfied_seconds_total counter
            pathd_path_unsatisfied_seconds_total 0.25
            # HELP pathd_interface_usable Usable.
            # TYPE pathd_interface_usable gauge
            pathd_interface_usable{interface="eth0"} 1
            # HELP pathd_build_info Build.
            # TYPE pathd_build_info gauge
            pathd_build_info{version="0.1.0"} 1

            """)
    }

    @Test("label values escape backslash, quote and newline; HELP escapes quotes in OpenMetrics only")
    func escaping() {
        let family = MetricFamily.gauge("pathd_x", help: "a \"b\" \\ c\nd",
                                        [MetricSample([MetricLabel("interface", "we\"ird\\\nname")], value: 1)])
        let openMetrics = Exposition.render([family], as: .openMetrics)
        #expect(openMetrics.contains(#"# HELP pathd_x a \"b\" \\ c\nd"#), "\(openMetrics)")
        #expect(openMetrics.contains(#"pathd_x{interface="we\"ird\\\nname"} 1"#), "\(openMetrics)")
        let prometheus = Exposition.render([family], as: .prometheus)
        #expect(prometheus.contains(#"# HELP pathd_x a "b" \\ c\nd"#), "\(prometheus)")
        #expect(prometheus.contains(#"pathd_x{interface="we\"ird\\\nname"} 1"#), "\(prometheus)")
        // Every line of both is one line: no raw newline survived.
        #expect(prometheus.split(separator: "\n").count == 3)
    }

    @Test("numbers: integers without a fraction, others shortest, NaN and infinities spelt as both formats want",
          arguments: [(0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.25, "0.25"), (1796150000.5, "1796150000.5"),
                      (1e-05, "1e-05"), (Double.nan, "NaN"), (Double.infinity, "+Inf"), (-Double.infinity, "-Inf"),
                      (1e300, "1e+300")])
    func numbers(value: Double, text: String) {
        let rendered = Exposition.render([.gauge("pathd_x", help: "x.", value: value)], as: .prometheus)
        #expect(rendered.hasSuffix("\npathd_x \(text)\n"), "\(rendered)")
    }

    @Test("an empty family keeps its metadata and no sample")
    func emptyFamily() {
        #expect(Exposition.render([.gauge("pathd_x", help: "x.", [])], as: .prometheus)
                == "# HELP pathd_x x.\n# TYPE pathd_x gauge\n")
        #expect(Exposition.render([.gauge("pathd_x", help: "x.", [])], as: .openMetrics)
                == "# TYPE pathd_x gauge\n# HELP pathd_x x.\n# EOF\n")
    }

    @Test("the name grammars", arguments: [("pathd_path_status", true), ("a:b_c9", true), ("9a", false), ("", false),
                                           ("a-b", false), ("a b", false), ("é", false)])
    func metricNames(name: String, valid: Bool) {
        #expect(MetricFamily.isValidName(name) == valid)
    }

    @Test("label names: no colon, no leading digit, __ reserved",
          arguments: [("interface", true), ("in_path", true), ("a:b", false), ("1a", false), ("__name", false)])
    func labelNames(name: String, valid: Bool) {
        #expect(MetricLabel.isValidName(name) == valid)
    }

    @Test("content types name the formats' versions")
    func contentTypes() {
        #expect(Exposition.Format.openMetrics.contentType
                == "application/openmetrics-text; version=1.0.0; charset=utf-8")
        #expect(Exposition.Format.prometheus.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }
}
