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

.PHONY: all deps build run test lint install uninstall clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

run: build
	$(RELEASE_DIR)/pathd $(PATHD_ARGS)

# Lint first so that the Swift test runners' summaries are the last lines printed.
# The debug build puts pathd and pathctl next to the test bundle, where KernelTests looks.
test: deps lint
	$(SWIFT) build
	$(SWIFT) test

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

clean:
	$(SWIFT) package clean
