# pathd — build, run, test, install.
# `make run` and `make test` first install missing Debian build dependencies
# (scripts/install-deps.sh is silent when everything is present).

SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
UNITDIR    ?= $(PREFIX)/lib/systemd/system
PATHD_ARGS ?=

RELEASE_DIR := .build/release
MAN_PAGES   := man/pathd.8 man/pathctl.1 man/pathd.conf.5
UNITS       := systemd/pathd.service systemd/pathd.socket
# The path written in systemd/pathd.service; rewritten at install time when BINDIR differs.
UNIT_EXEC   := /usr/local/bin/pathd

.PHONY: all deps build run test lint install uninstall clean bench fuzz

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

run: build
	$(RELEASE_DIR)/pathd $(PATHD_ARGS)

# Compiler warnings are bugs: `make test` fails on any. Both commands take the same
# flags, so `swift test` reuses the build (a plain `swift build` afterwards rebuilds).
WARNINGS_AS_ERRORS := -Xswiftc -warnings-as-errors

# Lint first so that the Swift test runners' summaries are the last lines printed.
# The debug build puts pathd, pathctl and the examples next to the test bundle, where
# KernelTests looks; it also compiles Tests/AppleCompatibility in both language modes.
test: deps lint
	$(SWIFT) build $(WARNINGS_AS_ERRORS)
	$(SWIFT) test $(WARNINGS_AS_ERRORS)

lint:
	mandoc -T lint -W warning $(MAN_PAGES)
	@if command -v systemd-analyze >/dev/null 2>&1; then \
		scripts/verify-units.sh $(UNITS); \
	else \
		echo "lint: systemd-analyze not found, units not verified" >&2; \
	fi

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR)
	install -m 0755 $(RELEASE_DIR)/pathd $(RELEASE_DIR)/pathctl $(DESTDIR)$(BINDIR)/
	install -m 0644 man/pathctl.1 $(DESTDIR)$(MANDIR)/man1/pathctl.1
	install -m 0644 man/pathd.8 $(DESTDIR)$(MANDIR)/man8/pathd.8
	install -m 0644 man/pathd.conf.5 $(DESTDIR)$(MANDIR)/man5/pathd.conf.5
	sed 's|$(UNIT_EXEC)|$(BINDIR)/pathd|' systemd/pathd.service > $(DESTDIR)$(UNITDIR)/pathd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/pathd.service
	install -m 0644 systemd/pathd.socket $(DESTDIR)$(UNITDIR)/pathd.socket

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pathd $(DESTDIR)$(BINDIR)/pathctl \
		$(DESTDIR)$(MANDIR)/man1/pathctl.1 $(DESTDIR)$(MANDIR)/man8/pathd.8 \
		$(DESTDIR)$(MANDIR)/man5/pathd.conf.5 \
		$(DESTDIR)$(UNITDIR)/pathd.service $(DESTDIR)$(UNITDIR)/pathd.socket

# Benchmarks (issue 6): root, network namespaces, about 5 minutes; not part of `test`.
# Prints Markdown; docs/PERFORMANCE.md holds a recorded run. BENCH_ARGS: see bench.py --help.
BENCH_ARGS ?=
bench: build
	Benchmarks/run.sh $(RELEASE_DIR)/pathd $(BENCH_ARGS)

# libFuzzer on the request, JSON and configuration parsers, FUZZ_SECONDS each.
# A crash leaves its input in .build-fuzz/artifacts/; make it a unit test.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := FuzzRequest FuzzJSON FuzzConfig
FUZZ_DIR     := .build-fuzz
fuzz: deps
	@mkdir -p $(FUZZ_DIR)/artifacts
	@# gold warns once per ASan symbol it cannot export; the log keeps them, the screen does not.
	cd Fuzz && $(SWIFT) build --sanitize=fuzzer --sanitize=address --scratch-path ../$(FUZZ_DIR) \
		> ../$(FUZZ_DIR)/build.log 2>&1 || { grep -v 'Cannot export local symbol' ../$(FUZZ_DIR)/build.log; exit 1; }
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$target; \
		echo "fuzz: $$target for $(FUZZ_SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_DIR)/debug/$$target -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/artifacts/$$target- \
			$(FUZZ_DIR)/corpus/$$target Fuzz/Seeds/$$target > $(FUZZ_DIR)/$$target.log 2>&1; \
		status=$$?; \
		grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|peak_rss_mb)' $(FUZZ_DIR)/$$target.log; \
		if [ $$status -ne 0 ]; then tail -40 $(FUZZ_DIR)/$$target.log; exit 1; fi; \
		if ! grep -q 'INITED cov:' $(FUZZ_DIR)/$$target.log; then \
			echo "fuzz: $$target has no coverage counters (stale build?); try rm -rf $(FUZZ_DIR)"; exit 1; fi; \
	done

clean:
	$(SWIFT) package clean
