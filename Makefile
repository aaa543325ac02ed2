# sheetd — common tasks. `make test` is what CI runs.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
PYTHON ?= python3
# The test clients' Python packages live in a virtual environment of the project's own:
# Debian 12 refuses `pip install` into the system Python (PEP 668).
VENV ?= .build/venv
# Release builds carry the Swift runtime (a device needs no toolchain) and export no symbols (a
# static Swift program otherwise exports all of them: 1.5 MB of names no one loads). Linked by
# lld (in the Swift toolchain) with the relative relocations packed (DT_RELR, glibc 2.36: 1.3 MB
# less to carry and for the loader to read at every start) and identical functions folded
# (--icf=all: 0.5 MB of specialisations that compile to the same code; lld folds code, never
# data, as Apple's ld64 deduplicates by default). Each function has its own section, so the
# linker lays the functions the daemon runs at rest and on a drag side by side
# (packaging/sheetd.order, `make order`): the kernel maps program text 64 KiB at a time
# around each first touch, so scattered functions cost resident memory they do not use.
ORDER_FILE = packaging/sheetd.order
# More flags for every build: a Swift SDK for another target (packaging/arm64/build sets it).
SWIFT_BUILD_FLAGS ?=
RELEASE_BUILD = $(SWIFT) build $(SWIFT_BUILD_FLAGS) -c release --static-swift-stdlib \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --icf=all -Xlinker --no-export-dynamic \
	$(if $(wildcard $(ORDER_FILE)),-Xlinker --symbol-ordering-file=$(CURDIR)/$(ORDER_FILE) -Xlinker --no-warn-symbol-ordering)
# `make install` strips the programs; the package leaves that to dh_strip, which keeps the
# debug symbols in sheetd-dbgsym.
INSTALL_STRIP ?= -s

.PHONY: all build release tools release-tools test qt qt-module qt-test catalogs debian-13 debian-sid arm64 arm64-test arm64-suite e2e-arm64 e2e-installed coverage demo man completions bench bench-web bench-peers bench-peers-profile bench-instructions bench-instructions-live soak faults fuzz fuzz-build deps e2e e2e-deps install uninstall clean wayland-screenshot web-screenshot wayland-protocols deb deb-check footprint order

# `make`, as yourself: what `make install` installs (the release programs, the man pages, the
# completions), so that `sudo make install` only copies (as autotools, meson and cmake do).
all: tools man completions

# The Debian packages (libinput, libudev, systemd-analyze; after Debian 12, also those of
# packaging/debian-packages-13) and the Python packages (a varlink client by someone else, for
# the tests, in $(VENV)) the project needs.
DEBIAN_PACKAGES := $(shell grep -v '^\#' packaging/debian-packages 2>/dev/null) \
	$(shell grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release || grep -v '^\#' packaging/debian-packages-13 2>/dev/null)

# apt-get runs (through sudo when not root) only when a package is missing, so `make demo` and
# `make test` set a fresh machine up and cost nothing once it is.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# apt's and pip's own output goes to $(DEPS_LOG): a step prints one line, and the log in full
# when it fails.
DEPS_LOG ?= .build/deps.log

deps:
	@mkdir -p $(dir $(DEPS_LOG)); : > $(DEPS_LOG); \
	missing=$$(for package in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${db:Status-Status}' $$package 2>/dev/null | grep -qx installed || echo $$package; done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing $$(echo $$missing | wc -w) Debian packages (apt's output in $(DEPS_LOG))"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } >> $(DEPS_LOG) 2>&1 \
			|| { cat $(DEPS_LOG); echo "make deps: apt-get failed (above, and in $(DEPS_LOG))"; exit 1; }; \
	fi; \
	if [ ! -x $(VENV)/bin/pip ]; then \
		echo "make deps: making the tests' Python environment in $(VENV)"; \
		$(PYTHON) -m venv $(VENV) >> $(DEPS_LOG) 2>&1 || { cat $(DEPS_LOG); exit 1; }; \
	fi; \
	$(VENV)/bin/pip install -q --disable-pip-version-check -r packaging/python-requirements.txt >> $(DEPS_LOG) 2>&1 \
		|| { cat $(DEPS_LOG); echo "make deps: pip failed (above, and in $(DEPS_LOG))"; exit 1; }; \
	echo "make deps: ready"

build:
	$(SWIFT) build

release:
	$(RELEASE_BUILD)

# Debian's swiftlang (unstable) ships the module of Swift Testing's Foundation overlay without
# its library (lib_Testing_Foundation.so), which every test target importing both would link:
# with that compiler the overlay is turned off (the tests use none of it). Asked of the compiler
# only when the tests run (`=`, not `:=`).
SWIFT_RESOURCES = $(shell swiftc -print-target-info 2>/dev/null | sed -n 's/^ *"runtimeResourcePath": "\(.*\)",*$$/\1/p')
TEST_FLAGS = $(if $(wildcard $(SWIFT_RESOURCES)/linux/_Testing_Foundation.swiftmodule),$(if $(wildcard $(SWIFT_RESOURCES)/linux/lib_Testing_Foundation.so),,-Xswiftc -Xfrontend -Xswiftc -disable-cross-import-overlays))

# Before the tests: no C struct from a system header built with Swift's memberwise
# initializer, which breaks when a newer release adds a member (packaging/check-c-structs).
# After them, the Qt Quick module's tests against the daemon they built (make qt-test).
test: deps catalogs
	packaging/check-c-structs
	$(SWIFT) test $(TEST_FLAGS)
	$(MAKE) qt-test

# The Qt Quick module (clients/qt, `import Sheetd`) and the example panel app that uses it
# (examples/qt), built with CMake against the system's Qt 6 (docs/renderers.md#in-a-qt-quick-app).
# The module is the plugin the package qml6-module-sheetd installs: built optimised, with
# Debian's build flags (dpkg-buildflags: hardening), so that `make deb` installs what `make
# test` tested. QT_CMAKE_FLAGS: more for CMake (debian/rules: the cross compiler of a cross build).
QT_BUILD ?= .build/qt
QT_CMAKE_FLAGS ?=
QT_BUILD_FLAGS = $(if $(shell command -v dpkg-buildflags),CXXFLAGS="$$(dpkg-buildflags --get CXXFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)")
qt-module:
	$(QT_BUILD_FLAGS) cmake -S clients/qt -B $(QT_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(QT_CMAKE_FLAGS) > /dev/null
	cmake --build $(QT_BUILD) -j$$(nproc)

qt: qt-module
	cmake -S examples/qt -B $(QT_BUILD)-example > /dev/null
	cmake --build $(QT_BUILD)-example -j$$(nproc)

# Its tests, under Qt's offscreen platform, against this tree's daemon and sheetctl; the
# pictures they draw stay in .build/screenshots/qt.
qt-test: qt
	$(SWIFT) build --product sheetd
	$(SWIFT) build --product sheetctl
	SHEETD_BIN=$$($(SWIFT) build --show-bin-path)/sheetd SHEETCTL_BIN=$$($(SWIFT) build --show-bin-path)/sheetctl \
		SHEETD_QT_SHOTS=$(CURDIR)/.build/screenshots/qt ctest --test-dir $(QT_BUILD) --output-on-failure

# The sheet's own words in each language of po/ (gettext catalogs: msgfmt --check), in
# .build/share/locale, where the programs of a build in the tree find them (SheetCatalog);
# `make install` puts them in $(DATADIR)/locale.
LANGUAGES := $(basename $(notdir $(wildcard po/*.po)))
CATALOGS := $(LANGUAGES:%=.build/share/locale/%/LC_MESSAGES/sheetd.mo)

# glibc translates only in a locale other than C (C.UTF-8 too, from glibc 2.37), and a
# kiosk may have none generated: SheetCatalog looks its words up in glibc's en_US messages
# category, made here by localedef (one 57-byte file), with LANGUAGE naming the catalog.
MESSAGES_LOCALE := .build/share/sheetd/locale/en_US.UTF-8/LC_MESSAGES/SYS_LC_MESSAGES

catalogs: $(CATALOGS) $(MESSAGES_LOCALE)

$(MESSAGES_LOCALE):
	rm -rf .build/localedef && mkdir -p .build/localedef
	localedef -i en_US -f UTF-8 .build/localedef/en_US.UTF-8 || [ $$? -eq 1 ]
	install -Dm644 .build/localedef/en_US.UTF-8/LC_MESSAGES/SYS_LC_MESSAGES $@
	rm -rf .build/localedef

.build/share/locale/%/LC_MESSAGES/sheetd.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

# The daemon on a bundled recording, with a watcher that waits for its socket (examples/demo).
demo: deps tools
	examples/demo

# The README's commands on Debian 13 (trixie) as a new user there would run them: in a tree
# made by mmdebstrap from Debian's archive and kept in ~/.cache/sheetd/debian (a second run
# reuses it), with the Swift toolchain bound in (Tests/debian/run). DEBIAN_13_TARGETS: what
# runs there.
DEBIAN_13_TARGETS ?= deps demo test deb-check

debian-13:
	@command -v mmdebstrap > /dev/null || { echo "make debian-13: installing mmdebstrap"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; } > /dev/null; }
	Tests/debian/run trixie $(DEBIAN_13_TARGETS)

# The same on Debian unstable (sid) with Debian's own compiler (`apt install swiftlang`, 6.2,
# built with assertions) and unstable's newer headers: no swift.org toolchain in the tree.
DEBIAN_SID_TARGETS ?= deps demo test

debian-sid:
	@command -v mmdebstrap > /dev/null || { echo "make debian-sid: installing mmdebstrap"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; } > /dev/null; }
	Tests/debian/run sid $(DEBIAN_SID_TARGETS)

# arm64 (Raspberry Pi 4 and 5, PinePhone, i.MX and Rockchip panels): the package for Debian 13
# arm64, cross-compiled on this amd64 machine with Debian unstable's swiftlang against a Debian
# 13 arm64 sysroot, made by debhelper in that tree under qemu-user (packaging/arm64/build):
# .build/deb/sheetd_VERSION_arm64.deb. arm64-test installs it in a Debian 13 arm64 tree, replays
# every bundled recording there against this machine's build byte for byte, and drives the arm64
# daemon from the amd64 sheetctl (Tests/arm64/run). docs/install.md#arm64.
arm64:
	packaging/arm64/build

arm64-test: tools
	Tests/arm64/run

# The test suite built for aarch64, optimised as the package is, and run under qemu-user (in
# the trees of make arm64, in a copy of its own): every test target that needs no daemon, compositor, display or Python client
# (Tests/arm64/suite).
arm64-suite:
	Tests/arm64/suite

# The e2e's daemon and render-drm scenarios in an aarch64 VM (qemu-system-aarch64 -M virt,
# software emulation) whose root is a Debian 13 arm64 tree with the package installed by apt
# (after make arm64; Tests/arm64/e2e).
e2e-arm64: e2e-deps tools
	Tests/arm64/e2e

# As installed: the amd64 package (make deb) installed by apt in a Debian 13 amd64 tree, which
# systemd boots as PID 1 in a VM; docs/kiosks.md's recipes run there as written, a touchscreen
# plugged after boot starts the service (Tests/e2e/guest-installed, docs/e2e.md#as-installed).
e2e-installed: e2e-deps tools deb
	Tests/arm64/e2e --arch amd64 installed

# Line coverage per module (llvm-cov, through swift test's own instrumentation): the whole
# test suite, then a table of Sources/ folders; the JSON stays in .build/debug/codecov. Fails
# when a module is under 70 % of lines, or the core under 90 %.
coverage: deps
	$(SWIFT) test --enable-code-coverage
	$(PYTHON) packaging/coverage-report "$$($(SWIFT) test --show-codecov-path)" Sources --minimum 70 --minimum SheetCore=90

# End to end on a real kernel: a QEMU VM (software emulation) boots the host's Debian kernel
# with the host's root read-only and runs sheetd on libinput's udev backend against uinput
# devices (Tests/e2e). Each run's logs stay in .build/e2e/runs/. E2E_SCENARIOS: which (default all).
E2E_DEBIAN_PACKAGES := $(shell grep -v '^\#' packaging/e2e-debian-packages 2>/dev/null)

# As `make deps`, apt-get runs only when a package is missing (so that it never holds dpkg's lock
# while another step installs a package).
e2e-deps:
	@mkdir -p $(dir $(DEPS_LOG)); \
	missing=$$(for package in $(E2E_DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${db:Status-Status}' $$package 2>/dev/null | grep -qx installed || echo $$package; done); \
	[ -z "$$missing" ] || { echo "make e2e-deps: QEMU, a kernel and the guest's tools: installing $$(echo $$missing | wc -w) Debian packages (apt's output in $(DEPS_LOG))"; \
	{ $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; } >> $(DEPS_LOG) 2>&1 \
		|| { cat $(DEPS_LOG); echo "make e2e-deps: apt-get failed (above, and in $(DEPS_LOG))"; exit 1; }; }

# The three programs alone, in release mode (what e2e, man and completions need): one program
# under three names (Sources/SheetPrograms), linked under each name for the tests and tools;
# `make install` installs it once, with the other two names as links.
tools: catalogs
	@# swift build relinks when its inputs change, and the order file is not one of them.
	@for tool in sheetd sheetctl sheet-render; do \
		[ ! -e .build/release/$$tool ] || [ ! $(ORDER_FILE) -nt .build/release/$$tool ] || rm -f .build/release/$$tool; \
	done
	$(RELEASE_BUILD) --product sheetd
	$(RELEASE_BUILD) --product sheetctl
	$(RELEASE_BUILD) --product sheet-render

# The functions the daemon runs at rest and on a drag, for the linker to lay side by side
# (needs valgrind); then `make tools` links with them.
order: tools
	Tests/footprint/order

E2E_SCENARIOS ?=

e2e: deps e2e-deps release-tools
	Tests/e2e/run $(E2E_SCENARIOS)

# The programs and, beside them, what the e2e (the Wayland probe) and the benchmarks
# (sheet-bench) run, in one release build: CI builds it once for bench-instructions, e2e,
# man, completions and deb-check.
release-tools: tools
	$(RELEASE_BUILD) --product sheet-wayland-probe
	$(RELEASE_BUILD) --product sheet-bench

# The fault suite (docs/reliability.md#faults): every row, those a real kernel decides in the
# e2e's VM (--vm: the `faults` scenario, which make e2e runs too), its table written into the doc.
faults: build e2e-deps tools
	Tests/faults/run .build/debug/sheetd --vm --write docs/reliability.md

# Benchmarks: the core's frames per second and allocations per frame, and the readers' MB/s
# and peak memory measured end to end through `sheetctl replay --summary`.
bench: release
	$(RELEASE_BUILD) --product sheet-bench
	.build/release/sheet-bench --sheetctl .build/release/sheetctl --sheetd .build/release/sheetd

# <sheet-view> in Debian's chromium during a drag: layouts, style recalculations and script time
# per state drawn (Tests/web/bench).
bench-web: deps tools
	Tests/web/bench

# sheetd beside lisgd and `libinput debug-events` on one uinput touchscreen in the e2e VM, the
# fixture recordings played PEER_ROUNDS times: each consumer's CPU ticks during the replay.
# bench-peers-profile does the same with perf sampling sheetd and counting its allocations.
PEER_ROUNDS ?= 4
bench-peers: e2e-deps tools
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lisgd libinput-tools
	Tests/e2e/run peers-$(PEER_ROUNDS)

bench-peers-profile: e2e-deps tools
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lisgd libinput-tools linux-perf
	Tests/e2e/run peers-$(PEER_ROUNDS)perf

# Instructions per turn of sheetd's loop thread under callgrind (valgrind from Debian), with no
# subscriber, one at 60 Hz and sixteen, and the core's per frame: counts that do not move from
# run to run, checked against Tests/instructions/budgets (more than 5 % over fails). The
# self-test shows the check failing on a change that adds 7 % to every turn.
bench-instructions: deps release-tools
	Tests/instructions/run
	Tests/instructions/run --self-test

# The same on the live path, in the e2e VM: a uinput touchscreen read through libinput, sheetd
# under callgrind there, split into libinput's share and sheetd's.
bench-instructions-live: deps e2e-deps tools
	mkdir -p .build/instructions
	cp .build/release/sheetd .build/instructions/sheetd && strip --strip-debug .build/instructions/sheetd
	Tests/e2e/run instructions

# The daemon for SOAK_SECONDS (half an hour) under a replay, 64 subscribers coming and going,
# control calls and screen changes: memory and descriptors flat, no error in the log.
SOAK_SECONDS ?= 1800

soak:
	SHEETD_SOAK_SECONDS=$(SOAK_SECONDS) $(SWIFT) test --filter SoakTests

# Fuzzing: every parser that takes outside bytes, under libFuzzer with address sanitizer, for
# FUZZ_SECONDS each (CI: 60). Built apart in .build/fuzz (every module instrumented; the C of
# libyaml too); linked with the toolchain's lld. Findings land in .build/fuzz/findings/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=

fuzz-build:
	$(SWIFT) build -c release --scratch-path .build/fuzz --product sheet-fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DSHEETD_FUZZING \
		-Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	Tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Man pages: sheetctl(1), sheet-render(1) and sheetd(8) from the argument parsers (swift-argument-parser's
# generate-manual on the release binaries) with the sections a parser cannot know appended from
# packaging/man/PAGE.extra; sheetd.yaml(5) from docs/configuration.md. Dated by the last commit.
MANDATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

man: tools
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) -c release --product generate-manual
	mkdir -p .build/man
	for page in sheetctl.1 sheet-render.1 sheetd.8; do \
		name=$${page%.*}; section=$${page##*.}; \
		$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) -c release --show-bin-path)/generate-manual .build/release/$$name \
			--section $$section --date "$(MANDATE)" --output-directory .build/man || exit 1; \
		sed -i 's/^$$/.Pp/' .build/man/$$page; \
		cat packaging/man/$$page.extra >> .build/man/$$page; \
	done
	$(PYTHON) packaging/man/configuration-page docs/configuration.md "$(MANDATE)" > .build/man/sheetd.yaml.5

# Shell completions for sheetctl and sheet-render, from their argument parsers.
completions: tools
	mkdir -p .build/completions/bash .build/completions/zsh .build/completions/fish
	for tool in sheetctl sheet-render; do \
		.build/release/$$tool --generate-completion-script bash | sed '1{/^#!/d}' > .build/completions/bash/$$tool && \
		.build/release/$$tool --generate-completion-script zsh > .build/completions/zsh/_$$tool && \
		.build/release/$$tool --generate-completion-script fish > .build/completions/fish/$$tool.fish || exit 1; \
	done

# Binaries, the systemd units, sysusers.d, the udev rule, man pages and completions. Afterwards:
#   systemd-sysusers; udevadm control --reload; udevadm trigger --subsystem-match=input
#   systemctl daemon-reload; systemctl enable --now sheetd.socket sheetd-input.socket sheetd.service
# It builds nothing: root's PATH (sudo's secure_path) has no Swift, and a build as root leaves
# files in .build its user cannot replace. What `make` made is copied; a missing file is named.
INSTALLED_BUILD := .build/release/sheetd .build/man/sheetd.8 .build/completions/bash/sheetctl

install:
	@for file in $(INSTALLED_BUILD); do \
		[ -e $$file ] || { echo "make install: $$file is not built; run \`make\` first, as yourself (it builds what this installs)" >&2; exit 1; }; \
	done
	install -Dm755 $(INSTALL_STRIP) .build/release/sheetd $(DESTDIR)$(BINDIR)/sheetd
	ln -sf sheetd $(DESTDIR)$(BINDIR)/sheetctl
	ln -sf sheetd $(DESTDIR)$(BINDIR)/sheet-render
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/sheetd.service.in > $(DESTDIR)$(UNITDIR)/sheetd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/sheetd.service
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/sheet-render@.service.in > $(DESTDIR)$(UNITDIR)/sheet-render@.service
	chmod 644 $(DESTDIR)$(UNITDIR)/sheet-render@.service
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/sheet-render-web.service.in > $(DESTDIR)$(UNITDIR)/sheet-render-web.service
	chmod 644 $(DESTDIR)$(UNITDIR)/sheet-render-web.service
	install -d $(DESTDIR)$(USERUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/user/sheet-render@.service.in > $(DESTDIR)$(USERUNITDIR)/sheet-render@.service
	chmod 644 $(DESTDIR)$(USERUNITDIR)/sheet-render@.service
	install -Dm644 systemd/sheetd.socket $(DESTDIR)$(UNITDIR)/sheetd.socket
	install -Dm644 systemd/sheetd-input.socket $(DESTDIR)$(UNITDIR)/sheetd-input.socket
	systemd/seat-units systemd $(DESTDIR)$(UNITDIR) $(BINDIR)
	install -Dm644 systemd/sheetd.sysusers $(DESTDIR)$(SYSUSERSDIR)/sheetd.conf
	install -Dm644 udev/70-sheetd.rules $(DESTDIR)$(UDEVRULESDIR)/70-sheetd.rules
	install -Dm644 udev/74-sheetd-seat.rules $(DESTDIR)$(UDEVRULESDIR)/74-sheetd-seat.rules
	install -Dm644 packaging/sheetd.yaml $(DESTDIR)$(DATADIR)/sheetd/sheetd.yaml.example
	install -d $(DESTDIR)$(SYSCONFDIR)/sheetd
	@# The web renderer's settings: a person's edits are kept (a package's conffile).
	[ -e $(DESTDIR)$(SYSCONFDIR)/sheetd/web.conf ] || install -m644 packaging/web.conf $(DESTDIR)$(SYSCONFDIR)/sheetd/web.conf
	install -Dm644 $(MESSAGES_LOCALE) $(DESTDIR)$(DATADIR)/sheetd/locale/en_US.UTF-8/LC_MESSAGES/SYS_LC_MESSAGES
	for language in $(LANGUAGES); do \
		install -Dm644 .build/share/locale/$$language/LC_MESSAGES/sheetd.mo $(DESTDIR)$(DATADIR)/locale/$$language/LC_MESSAGES/sheetd.mo || exit 1; \
	done
	install -Dm644 -t $(DESTDIR)$(MANDIR)/man1 .build/man/sheetctl.1 .build/man/sheet-render.1
	install -Dm644 -t $(DESTDIR)$(MANDIR)/man5 .build/man/sheetd.yaml.5
	install -Dm644 -t $(DESTDIR)$(MANDIR)/man8 .build/man/sheetd.8
	install -Dm644 -t $(DESTDIR)$(DATADIR)/bash-completion/completions .build/completions/bash/sheetctl .build/completions/bash/sheet-render
	install -Dm644 -t $(DESTDIR)$(DATADIR)/zsh/vendor-completions .build/completions/zsh/_sheetctl .build/completions/zsh/_sheet-render
	install -Dm644 -t $(DESTDIR)$(DATADIR)/fish/vendor_completions.d .build/completions/fish/sheetctl.fish .build/completions/fish/sheet-render.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sheetd $(DESTDIR)$(BINDIR)/sheetctl $(DESTDIR)$(BINDIR)/sheet-render
	rm -f $(DESTDIR)$(UNITDIR)/sheetd.service $(DESTDIR)$(UNITDIR)/sheetd.socket $(DESTDIR)$(UNITDIR)/sheetd-input.socket $(DESTDIR)$(UNITDIR)/sheet-render@.service $(DESTDIR)$(UNITDIR)/sheet-render-web.service
	rm -f $(DESTDIR)$(UNITDIR)/sheetd@.service $(DESTDIR)$(UNITDIR)/sheetd@.socket $(DESTDIR)$(UNITDIR)/sheetd-input@.socket $(DESTDIR)$(UNITDIR)/sheet-render-seat@.service
	rm -f $(DESTDIR)$(USERUNITDIR)/sheet-render@.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/sheetd.conf $(DESTDIR)$(UDEVRULESDIR)/70-sheetd.rules $(DESTDIR)$(UDEVRULESDIR)/74-sheetd-seat.rules
	rm -rf $(DESTDIR)$(DATADIR)/sheetd
	for language in $(LANGUAGES); do rm -f $(DESTDIR)$(DATADIR)/locale/$$language/LC_MESSAGES/sheetd.mo; done
	rm -f $(DESTDIR)$(MANDIR)/man1/sheetctl.1 $(DESTDIR)$(MANDIR)/man1/sheet-render.1
	rm -f $(DESTDIR)$(MANDIR)/man5/sheetd.yaml.5 $(DESTDIR)$(MANDIR)/man8/sheetd.8
	rm -f $(DESTDIR)$(DATADIR)/bash-completion/completions/sheetctl $(DESTDIR)$(DATADIR)/bash-completion/completions/sheet-render
	rm -f $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_sheetctl $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_sheet-render
	rm -f $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/sheetctl.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/sheet-render.fish

# A Debian package in .build/deb (debian/: debhelper, make install with Debian's paths);
# deb-check lints it, installs it, checks it and purges it, as CI does.
deb:
	dpkg-checkbuilddeps
	debian/rules binary

deb-check: deb
	packaging/deb-check

# What the package installs, file by file, and sheetd's and sheet-render's resident memory at
# rest and through a replayed drag, against the targets (docs/performance.md).
footprint: deb tools
	Tests/footprint/run

# docs/images/wayland-sway.png: the sheet over a window in headless sway, taken with grim.
wayland-screenshot:
	$(SWIFT) build
	docs/images/wayland-screenshot docs/images/wayland-sway.png
	docs/images/wayland-screenshot docs/images/wayland-sway-korean.png examples/korean.yaml
	docs/images/wayland-screenshot docs/images/wayland-sway-bar.png examples/menu.yaml collapsed --present-gesture bottom-bar
	docs/images/wayland-screenshot docs/images/wayland-sway-non-modal.png examples/menu.yaml half --modal false

# docs/images/web-kiosk.png, web-kiosk-arabic.png and web-cage.png: examples/web's kiosk page
# with the sheet drawn by <sheet-view>, in Debian's chromium through Playwright, and under cage.
web-screenshot: deps tools
	docs/images/web-screenshot
	docs/images/web-cage-screenshot

# The Wayland protocol code, from the descriptions (needs wayland-scanner and wayland-protocols).
wayland-protocols:
	Sources/CWayland/generate

clean:
	rm -rf .build
