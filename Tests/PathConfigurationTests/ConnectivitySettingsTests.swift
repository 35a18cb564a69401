// SPDX-License-Identifier: Apache-2.0
import PathModel
import PathConfiguration
import Testing

@Suite("[Connectivity] section and time spans")
struct ConnectivitySettingsTests {
    func parse(_ texts: (String, String)...) -> ConfigurationResult {
        Configuration.parse(texts.map { ConfigurationSource(name: $0.0, text: $0.1) })
    }

    @Test("no section: checking is off, nothing to contact")
    func offByDefault() {
        let connectivity = Configuration.builtIn.connectivity
        #expect(!connectivity.isEnabled)
        #expect(connectivity.url == nil && connectivity.expected == nil)
        #expect(connectivity.interval == .seconds(300) && connectivity.timeout == .seconds(10))
    }

    @Test("every key, with escapes in ExpectedContent=")
    func everyKey() {
        let result = parse(("pathd.conf", """
            [Connectivity]
            URL=https://check.example.org/pathd
            ExpectedContent=pathd-ok\\n\\x41\\s
            Interval=1h 30min
            Timeout=2.5s
            """))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let connectivity = result.configuration.connectivity
        #expect(connectivity.url == "https://check.example.org/pathd")
        #expect(connectivity.expected == .bytes(Array("pathd-ok\nA ".utf8)))
        #expect(connectivity.interval == .seconds(5400))
        #expect(connectivity.timeout == .milliseconds(2500))
    }

    @Test("ExpectedSHA256= takes 64 hex digits in either case; the later of the two keys wins")
    func digest() {
        let digest = "5200F31394E983861B573ECF424853B57AD2ABC2218A0D2CC390877A6BCC2197"
        let result = parse(("pathd.conf", "[Connectivity]\nURL=http://192.0.2.9/c\nExpectedContent=x\n"),
                           ("pathd.conf.d/sha.conf", "[Connectivity]\nExpectedSHA256=\(digest)\n"))
        #expect(result.isValid, "\(result.diagnostics)")
        #expect(result.configuration.connectivity.expected == .sha256(Hexadecimal.bytes(digest) ?? []))
    }

    @Test("bad values are errors naming file, line and what the key takes", arguments: [
        ("URL=ftp://example.org/x", "URL= expects an http:// or https:// URL"),
        ("URL=http:///nohost", "URL= expects an http:// or https:// URL"),
        ("URL=http://example.org/a b", "URL= expects an http:// or https:// URL"),
        ("ExpectedSHA256=abc", "ExpectedSHA256= expects 64 hexadecimal digits"),
        ("ExpectedContent=bad\\q", "ExpectedContent= expects text of at most 64 KiB"),
        ("Interval=5s", "Interval= expects a time span from 10s to 1d"),
        ("Interval=soon", "Interval= expects a time span"),
        ("Timeout=0", "Timeout= expects a time span from 100ms to 1min"),
    ])
    func badValues(line: String, message: String) {
        let result = parse(("pathd.conf", "[Connectivity]\n\(line)\n"))
        #expect(!result.isValid)
        #expect(result.diagnostics.errors.first?.description.hasPrefix("pathd.conf:2: \(message)") == true,
                "\(result.diagnostics)")
    }

    @Test("""
        the section as a whole: a URL needs expected content, and content a URL; the timeout is shorter than the \
        interval
        """)
    func consistency() {
        let noContent = parse(("pathd.conf", "[Connectivity]\nURL=http://192.0.2.9/c\n"))
        #expect(noContent.diagnostics.errors.map(\.description)
            == ["pathd.conf:2: URL= needs ExpectedContent= or ExpectedSHA256=: the check is proved by content"])
        let noURL = parse(("pathd.conf", "[Connectivity]\n\nExpectedContent=ok\n"))
        #expect(noURL.diagnostics.errors.first?.description.hasPrefix("pathd.conf:3: ExpectedContent= is set but " +
                                                                      "URL= is not") == true)
        let slow = parse(("pathd.conf",
                          "[Connectivity]\nURL=http://192.0.2.9/c\nExpectedContent=ok\nInterval=10s\nTimeout=30s\n"))
        #expect(slow.diagnostics.errors.first?.description
                == "pathd.conf:5: Timeout=30s must be shorter than Interval=10s")
        // A drop-in completes the main file: valid together.
        let split = parse(("pathd.conf", "[Connectivity]\nURL=http://192.0.2.9/c\n"),
                          ("pathd.conf.d/50-content.conf", "[Connectivity]\nExpectedContent=ok\n"))
        #expect(split.isValid)
        // An empty URL= in a drop-in turns checking off again, and then content alone is an error.
        let off = parse(("pathd.conf", "[Connectivity]\nURL=http://192.0.2.9/c\nExpectedContent=ok\n"),
                        ("pathd.conf.d/off.conf", "[Connectivity]\nURL=\nExpectedContent=\n"))
        #expect(off.isValid && !off.configuration.connectivity.isEnabled)
    }

    @Test("unknown keys are warnings with a hint; [connectivity] gets one too")
    func unknownKeys() {
        let result = parse(("pathd.conf", "[Connectivity]\nurl=http://x/\n[connectivity]\n"))
        #expect(result.isValid)
        #expect(result.diagnostics.map(\.description) == [
            "pathd.conf:2: unknown key url= in [Connectivity] (did you mean URL=?); ignored",
            "pathd.conf:3: unknown section [connectivity] (did you mean [Connectivity]?); ignored",
        ])
    }

    @Test("--check-config's rendering parses back to the same configuration")
    func rendersBack() {
        let result = parse(("pathd.conf", """
            [Connectivity]
            URL=http://[2001:db8::9]:8080/check?x=1
            ExpectedContent=\\sok\\t\\x00\\xff\\\\\\s
            Interval=90s
            Timeout=750ms
            """))
        #expect(result.isValid, "\(result.diagnostics)")
        let rendered = result.configuration.renderedINI()
        #expect(rendered.contains("\nInterval=1min 30s\nTimeout=750ms\n"), "\(rendered)")
        let again = Configuration.parse([ConfigurationSource(name: "rendered", text: rendered)])
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
        #expect(again.configuration == result.configuration)
        #expect(Configuration.parse([ConfigurationSource(name: "r",
                                                         text: Configuration.builtIn.renderedINI())]).configuration
            == .builtIn)
    }

    @Test("time spans as systemd writes them", arguments: [
        ("30", Duration.seconds(30)), ("30s", .seconds(30)), ("5min", .seconds(300)), ("1h 30min", .seconds(5400)),
        ("2.5s", .milliseconds(2500)), ("250ms", .milliseconds(250)), ("1d", .seconds(86_400)), ("1min30s",
                                                                                                 .seconds(90)),
        ("3 hours", .seconds(10_800)), ("0.5m", .seconds(30)),
    ])
    func timeSpans(text: String, span: Duration) {
        #expect(TimeSpan.parse(text) == span)
        #expect(TimeSpan.parse(TimeSpan.render(span)) == span)
    }

    @Test("not time spans", arguments: ["", "s", "5 fortnights", "-5s", "1.s", "1e3s", "99999999999999d", "5s garbage"])
    func notTimeSpans(text: String) {
        #expect(TimeSpan.parse(text) == nil)
    }
}
