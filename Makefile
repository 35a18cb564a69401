# SPDX-License-Identifier: Apache-2.0
# pathd — build, run, test, install, package.
# `make run`, `make test`, `make deb` and `make bench` first install missing Debian
# packages (scripts/install-deps.sh is silent when everything is present); `make build`
# and `make install` never do.

SWIFT       ?= swift
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/pathd
# Files other programs read (Prometheus's rules): not under doc/, which a system may
# leave out (Debian policy 12.3).
DATADIR     ?= $(PREFIX)/share/pathd
UNITDIR     ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# Not a prefix path: pathd reads /etc/pathd/pathd.conf whatever the prefix.
SYSCONFDIR  := /etc
# Nor are the DHCP clients' hook directories: dhclient-script and dhcpcd-run-hooks read
# these and no other (the hooks, packaging/hooks, tell pathd about each lease).
DHCLIENTHOOKDIR := $(SYSCONFDIR)/dhcp/dhclient-exit-hooks.d
DHCPCDHOOKDIR   := /usr/lib/dhcpcd/dhcpcd-hooks
PATHD_ARGS  ?=

# Every installed binary comes from this build: the Swift runtime linked in statically
# and no RUNPATH, so the binaries run where the toolchain is not installed (they need
# libnl-3 and libsystemd from Debian, and pathd-probe libcurl, nothing else); full
# RELRO (-z now) as Debian's hardening flags ask.
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath \
                 -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
RELEASE_DIR   ?= .build/release
MAN_PAGES     := man/pathd.8 man/pathctl.1 man/pathd.conf.5 man/pathd-probe.8
UNITS         := packaging/systemd/pathd.service packaging/systemd/pathd.socket \
                 packaging/systemd/pathd-wait-online.service packaging/systemd/pathd-probe.service \
                 packaging/systemd/pathd-wait-route@.service packaging/systemd/pathd-path@.service
# Units and man pages name the default install paths (/usr/local/...); installed
# copies name the real ones.
INSTALLED_PATHS := sed -e 's|/usr/local/bin|$(BINDIR)|g' \
                       -e 's|/usr/local/lib/systemd/system|$(UNITDIR)|g' \
                       -e 's|/usr/local/share/doc/pathd|$(DOCDIR)|g' \
                       -e 's|/usr/local/share/pathd|$(DATADIR)|g'

# `make deb`: the Debian package, built from a copy of the tree (packaging/debian as
# its debian/) kept in build/, so a rebuild is incremental. The .deb lands in build/.
DEB_VERSION = $(shell dpkg-parsechangelog -l packaging/debian/changelog -S Version)
DEB_ARCH    = $(shell dpkg --print-architecture)
DEB_FILE    = build/pathd_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_GIO_FILE = build/pathd-gio-module_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_TREE    := build/pathd

.PHONY: all deps build run test test-systemd test-repeat lint install uninstall deb clean bench bench-systemd bench-decode fuzz gio-module \
        build-gio-module install-gio-module uninstall-gio-module interop generate completions example-config

all: build

deps:
	@scripts/install-deps.sh

# No apt-get here: packagers build in a chroot that has the build dependencies.
# SWIFT_BUILD_FLAGS: more flags for these builds (`make test` passes -warnings-as-errors
# through `make deb`).
SWIFT_BUILD_FLAGS ?=
build:
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product pathd
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product pathctl
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product pathd-probe

# The GIO module (gio-module/, C against GLib and json-glib) is built and installed on its
# own: `make build` and `make install` need no GLib development files, so a server gets
# pathd without them. `make -C gio-module` owns the module's build; GIOMODULEDIR defaults
# to GLib's (`pkg-config --variable=giomoduledir gio-2.0`). CFLAGS, CPPFLAGS and LDFLAGS
# given on the command line reach it.
build-gio-module:
	$(MAKE) -C gio-module

# GLib's module directory (GLib owns it): asked only when a gio-module target runs.
GIOMODULEDIR ?= $(shell pkg-config --variable=giomoduledir gio-2.0)

# Installed into the live system (no DESTDIR), GIO's cache of which module implements which
# extension point is refreshed, as libglib2.0-0's dpkg trigger does for the package.
install-gio-module:
	@if [ ! -e gio-module/build/modules/libgiopathd.so ]; then \
		echo "install-gio-module: gio-module/build/modules/libgiopathd.so is missing: run 'make build-gio-module' first, as yourself; install only copies" >&2; \
		exit 1; \
	fi
	$(MAKE) -C gio-module install DESTDIR=$(DESTDIR) GIOMODULEDIR=$(GIOMODULEDIR)
	$(if $(DESTDIR),,$(GIO_QUERYMODULES))

uninstall-gio-module:
	$(MAKE) -C gio-module uninstall DESTDIR=$(DESTDIR) GIOMODULEDIR=$(GIOMODULEDIR)
	$(if $(DESTDIR),,$(GIO_QUERYMODULES))

GIO_QUERYMODULES = @querymodules=$$(pkg-config --variable=gio_querymodules gio-2.0); \
	if [ -x "$$querymodules" ]; then echo "$$querymodules $(GIOMODULEDIR)"; "$$querymodules" $(GIOMODULEDIR); \
	else echo "install-gio-module: gio-querymodules not found; run it on $(GIOMODULEDIR)" >&2; fi

# The programs that check other toolkits against pathd (Tests/Interop/): built by `make
# test`, run by the kernel tests, which skip them, saying so, when they are not built.
INTEROP_DIR := build/interop
interop: $(INTEROP_DIR)/qt-reachability

$(INTEROP_DIR)/qt-reachability: Tests/Interop/qt-reachability.cpp
	@mkdir -p $(INTEROP_DIR)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -fPIC -O2 -o $@ $< $$(pkg-config --cflags --libs Qt6Network)

run: deps build
	$(RELEASE_DIR)/pathd $(PATHD_ARGS)

# Compiler warnings are bugs: `make test` fails on any. (A plain `swift build` after
# `make test` rebuilds: the flags differ.)
WARNINGS_AS_ERRORS := -Xswiftc -warnings-as-errors

# Lint first so that the Swift test runners' summaries are the last lines printed.
# The package is built next (the tests install it into a scratch root and a container),
# with warnings as errors; then the client library (the PathClient target and all it
# links) in release too, in the package's own build tree, so that the modules the
# package compiled are not compiled again (a whole release build of its own took 80 s
# of a fresh clone's 8 min 47 s). Every target, examples and test code included, is
# compiled by `swift test`'s debug build.
# `swift test` builds every target, not only the test targets' dependencies: pathd,
# pathctl, pathd-probe and the examples land next to the test bundle, where KernelTests,
# PackagingTests and ProgramTests look (BuiltProduct), and Tests/AppleCompatibility is
# compiled in both language modes.
test: deps lint gio-module interop
	$(MAKE) deb SWIFT_BUILD_FLAGS="$(WARNINGS_AS_ERRORS)"
	cd $(DEB_TREE) && $(SWIFT) build $(RELEASE_FLAGS) $(WARNINGS_AS_ERRORS) --target PathClient
	PATHD_TEST_DEB=$(CURDIR)/$(DEB_FILE) PATHD_TEST_GIO_DEB=$(CURDIR)/$(DEB_GIO_FILE) \
		$(SWIFT) test $(WARNINGS_AS_ERRORS)

# Only the tier that boots systemd in a container and installs the packages built here
# (Tests/SystemdTests; `make test` runs it with everything else).
test-systemd: deps deb
	PATHD_TEST_DEB=$(CURDIR)/$(DEB_FILE) PATHD_TEST_GIO_DEB=$(CURDIR)/$(DEB_GIO_FILE) \
		$(SWIFT) test $(WARNINGS_AS_ERRORS) --filter SystemdTests

# The GIO network-monitor module (C; gio-module/README.md): built and unit-tested here,
# loaded into a GLib program by the kernel tests (Tests/KernelTests/GIOModuleTests.swift).
gio-module:
	$(MAKE) -C gio-module all check

# `make test-repeat N=20 [FILTER=regex]`: hunts flaky tests before a release. Builds the
# tests once, then runs `swift test --skip-build --filter FILTER` N times in a row (by
# default the kernel, packaging, program, daemon, client, netlink, kernel-state, system-call and
# file-reading tests: the ones that race real processes, sockets and files) and stops at
# the first failing run, printing its number, the failed tests and its log
# (build/test-repeat/run-N.log).
# It builds the GIO module and the interop programs as `make test` does, so their tests
# run too. The package tests unpack the packages `make deb` left in build/ (or
# PATHD_TEST_DEB and PATHD_TEST_GIO_DEB); run it first, or they skip (each run's line
# counts the skipped tests).
N      ?= 20
FILTER ?= KernelTests|PackagingTests|ProgramTests|PathDaemonTests|ClientLibraryTests|NetlinkTests|KernelStateTests|SystemCallsTests|PathConfigurationTests
test-repeat: deps gio-module interop
	$(SWIFT) build --build-tests $(WARNINGS_AS_ERRORS)
	SWIFT=$(SWIFT) scripts/test-repeat.sh '$(N)' '$(FILTER)' build/test-repeat

lint:
	mandoc -T lint -W warning $(MAN_PAGES)
	scripts/check-testable-imports.py $(SWIFT)
	scripts/check-line-length.py
	scripts/check-spdx.py
	scripts/check-known-values.py
	@if command -v systemd-analyze >/dev/null 2>&1; then \
		scripts/verify-units.sh $(UNITS); \
	else \
		echo "lint: systemd-analyze not found, units not verified" >&2; \
	fi

# Every file the programs write from their tables, checked in: run this after changing a
# command table or a configuration key (CompletionTests and PackagingFilesTests fail
# until the files match).
generate: completions example-config

# Each program's completions are written by the program from its command table
# (CommandLineOptions' one generator) and checked in, so packagers install plain files;
# run this after changing a table or a [Daemon] key (CompletionTests fails until the
# files match).
COMPLETING := pathctl pathd pathd-probe
completions:
	for product in $(COMPLETING); do $(SWIFT) build --product $$product || exit 1; done
	bin=$$($(SWIFT) build --show-bin-path) && for program in $(COMPLETING); do \
		$$bin/$$program --completions bash > packaging/completions/$$program.bash && \
		$$bin/$$program --completions zsh > packaging/completions/_$$program && \
		$$bin/$$program --completions fish > packaging/completions/$$program.fish || exit 1; \
	done

# packaging/pathd.conf likewise is written by pathd from its configuration-key tables;
# run this after adding or changing a key (PackagingFilesTests fails until it matches).
example-config:
	$(SWIFT) build --product pathd
	$$($(SWIFT) build --show-bin-path)/pathd --print-example-config > packaging/pathd.conf

# Copies what `make build` made; never builds (it runs as root, the build as you).
install:
	@for binary in pathd pathctl pathd-probe; do \
		if [ ! -x $(RELEASE_DIR)/$$binary ]; then \
			echo "install: $(RELEASE_DIR)/$$binary is missing: run 'make build' first, as yourself; install only copies" >&2; \
			exit 1; \
		fi; \
	done
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)/prometheus \
		$(DESTDIR)$(SYSCONFDIR)/pathd $(DESTDIR)$(SYSCONFDIR)/pathd/pathd.conf.d \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) \
		$(DESTDIR)$(DHCLIENTHOOKDIR) $(DESTDIR)$(DHCPCDHOOKDIR)
	install -m 0755 $(RELEASE_DIR)/pathd $(RELEASE_DIR)/pathctl $(RELEASE_DIR)/pathd-probe $(DESTDIR)$(BINDIR)/
	$(INSTALLED_PATHS) man/pathctl.1 > $(DESTDIR)$(MANDIR)/man1/pathctl.1
	$(INSTALLED_PATHS) man/pathd.8 > $(DESTDIR)$(MANDIR)/man8/pathd.8
	$(INSTALLED_PATHS) man/pathd-probe.8 > $(DESTDIR)$(MANDIR)/man8/pathd-probe.8
	$(INSTALLED_PATHS) man/pathd.conf.5 > $(DESTDIR)$(MANDIR)/man5/pathd.conf.5
	for unit in $(UNITS); do $(INSTALLED_PATHS) $$unit > $(DESTDIR)$(UNITDIR)/$$(basename $$unit); done
	chmod 0644 $(DESTDIR)$(MANDIR)/man*/pathd* $(DESTDIR)$(MANDIR)/man1/pathctl.1 $(DESTDIR)$(UNITDIR)/pathd*
	install -m 0644 docs/PROTOCOL.md docs/FLEET.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 packaging/prometheus/pathd.rules.yml packaging/prometheus/pathd.rules.test.yml \
		$(DESTDIR)$(DATADIR)/prometheus/
	install -m 0644 packaging/completions/pathctl.bash $(DESTDIR)$(BASHCOMPDIR)/pathctl
	install -m 0644 packaging/completions/pathd.bash $(DESTDIR)$(BASHCOMPDIR)/pathd
	install -m 0644 packaging/completions/pathd-probe.bash $(DESTDIR)$(BASHCOMPDIR)/pathd-probe
	install -m 0644 packaging/completions/_pathctl packaging/completions/_pathd packaging/completions/_pathd-probe \
		$(DESTDIR)$(ZSHCOMPDIR)/
	install -m 0644 packaging/completions/pathctl.fish packaging/completions/pathd.fish \
		packaging/completions/pathd-probe.fish $(DESTDIR)$(FISHCOMPDIR)/
	@# Sourced by the clients' scripts, not run: plain files, naming the installed pathctl.
	$(INSTALLED_PATHS) packaging/hooks/dhclient-exit-hook > $(DESTDIR)$(DHCLIENTHOOKDIR)/pathd
	$(INSTALLED_PATHS) packaging/hooks/dhcpcd-hook > $(DESTDIR)$(DHCPCDHOOKDIR)/90-pathd
	chmod 0644 $(DESTDIR)$(DHCLIENTHOOKDIR)/pathd $(DESTDIR)$(DHCPCDHOOKDIR)/90-pathd
	@# Never over an administrator's file.
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/pathd/pathd.conf ]; then \
		echo "install: keeping $(DESTDIR)$(SYSCONFDIR)/pathd/pathd.conf"; \
	else \
		echo "install -m 0644 packaging/pathd.conf $(DESTDIR)$(SYSCONFDIR)/pathd/pathd.conf"; \
		install -m 0644 packaging/pathd.conf $(DESTDIR)$(SYSCONFDIR)/pathd/pathd.conf; \
	fi

# Leaves /etc/pathd/pathd.conf and the drop-ins, which may hold the administrator's settings.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pathd $(DESTDIR)$(BINDIR)/pathctl $(DESTDIR)$(BINDIR)/pathd-probe \
		$(DESTDIR)$(MANDIR)/man1/pathctl.1 $(DESTDIR)$(MANDIR)/man8/pathd.8 $(DESTDIR)$(MANDIR)/man8/pathd-probe.8 \
		$(DESTDIR)$(MANDIR)/man5/pathd.conf.5 $(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(UNITS))) \
		$(DESTDIR)$(DOCDIR)/PROTOCOL.md $(DESTDIR)$(DOCDIR)/FLEET.md \
		$(DESTDIR)$(DATADIR)/prometheus/pathd.rules.yml $(DESTDIR)$(DATADIR)/prometheus/pathd.rules.test.yml \
		$(DESTDIR)$(BASHCOMPDIR)/pathctl $(DESTDIR)$(BASHCOMPDIR)/pathd $(DESTDIR)$(BASHCOMPDIR)/pathd-probe \
		$(DESTDIR)$(ZSHCOMPDIR)/_pathctl $(DESTDIR)$(ZSHCOMPDIR)/_pathd $(DESTDIR)$(ZSHCOMPDIR)/_pathd-probe \
		$(DESTDIR)$(FISHCOMPDIR)/pathctl.fish $(DESTDIR)$(FISHCOMPDIR)/pathd.fish $(DESTDIR)$(FISHCOMPDIR)/pathd-probe.fish \
		$(DESTDIR)$(DHCLIENTHOOKDIR)/pathd $(DESTDIR)$(DHCPCDHOOKDIR)/90-pathd
	-rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)

# The tree is copied without .git and the build outputs; its own .build/ survives.
# lintian fails the target on any error; its warnings are listed in the README.
deb: deps
	@mkdir -p $(DEB_TREE)
	rsync -a --delete --exclude=/.git --exclude=/.build --exclude=/.build-* --exclude=/build \
		--exclude=/debian --exclude=/gio-module/build ./ $(DEB_TREE)/
	rsync -a --delete packaging/debian/ $(DEB_TREE)/debian/
	cd $(DEB_TREE) && dpkg-buildpackage --build=binary --no-sign --no-pre-clean
	lintian --fail-on error build/pathd_$(DEB_VERSION)_$(DEB_ARCH).changes
	@echo "deb: $(DEB_FILE) $(DEB_GIO_FILE)"

# Benchmarks (docs/PERFORMANCE.md, "Targets and results", and a section each below it):
# root, network namespaces, about 15 minutes; not part of `test`. Prints Markdown;
# docs/PERFORMANCE.md holds a recorded run. BENCH_ARGS: see bench.py --help;
# BENCH_ARGS="--only flood" measures just the route flood (1.5 minutes),
# BENCH_ARGS="--only hostile,memory" the hostile local users (about 30 s),
# BENCH_ARGS="--only start,engine,latency,breakdown" the start, the hops and the
# in-process engine (about 2 minutes), BENCH_ARGS="--only gio" the GLib part (about 3
# minutes, with its own route flood: gio-module's gio-watch with the built module against
# GLib's netlink backend), BENCH_ARGS="--only start,resync,engine,latency,latency5,flood,start-full"
# the per-interface lookups (about 4 minutes: start and resync with 1M routes, latency
# with 5 interfaces), BENCH_ARGS="--only routewatch" the watched routes
# (Benchmarks/routewatch.py: three floods, 1,000 watched routes, line latency; about 2
# minutes with the default 1M routes), BENCH_ARGS="--only run" pathctl run (Benchmarks/
# runbench.py: path turns expensive → the command's SIGTERM, idle while it runs; 90 s).
# BENCH_ARGS="--only latency,floor" pathd's line against the floor (pathd-floor in pathd's
# place: the least a reader that asks the lookups does; about 4 minutes).
# pathd-engine-bench times the client library's in-process engine beside pathd; pathd-linestamp
# stamps pathd's and ip monitor's lines as their reads return (bench.py, "How it is measured").
BENCH_ARGS ?=
bench: deps build build-gio-module
	$(SWIFT) build $(RELEASE_FLAGS) --product pathd-engine-bench
	$(SWIFT) build $(RELEASE_FLAGS) --product pathd-linestamp
	$(SWIFT) build $(RELEASE_FLAGS) --product pathd-floor
	Benchmarks/run.sh $(RELEASE_DIR)/pathd --gio-watch gio-module/build/gio-watch \
		--gio-modules gio-module/build/modules $(BENCH_ARGS)
	$(MAKE) bench-systemd

# pathd's rtnetlink decoders against libnl-route-3's objects on the same captured messages
# (docs/ARCHITECTURE.md, "Why not libnl-route's objects"): root, one namespace of 200 links,
# 10,000 neighbours and 100,000 routes; about a minute, so not part of `bench`.
# BENCH_DECODE_ARGS: see Benchmarks/decodebench.py --help.
BENCH_DECODE_ARGS ?=
bench-decode: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product pathd-decode-bench
	Benchmarks/decodebench.py --bench $(RELEASE_DIR)/pathd-decode-bench --allocations $(BENCH_DECODE_ARGS)

# pathd's package under a real systemd in a container: start → READY=1, memory, stop
# with 100 subscribers, and a job bound to pathd-path@not-expensive stopped by a reload
# that makes the path expensive and by a hotspot's router taking over (Benchmarks/systemd.py;
# about 40 s).
bench-systemd: deps deb
	Benchmarks/systemd.py --deb $(DEB_FILE)

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
	$(MAKE) -C gio-module fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

clean:
	$(SWIFT) package clean
	rm -rf build
	$(MAKE) -C gio-module clean
