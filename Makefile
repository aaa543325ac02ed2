# sheetd — common tasks. `make test` is what CI runs.
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: all build release test bench deps clean

all: build

# The Debian packages the project needs (none for the core and replay yet).
DEBIAN_PACKAGES := $(shell grep -v '^\#' packaging/debian-packages 2>/dev/null)

deps:
	@if [ -n "$(strip $(DEBIAN_PACKAGES))" ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PACKAGES); \
	else echo "no Debian packages needed"; fi

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

test:
	$(SWIFT) test

# Benchmarks: the core's frames per second and allocations per frame, and the readers' MB/s
# and peak memory measured end to end through `sheetctl replay --summary`.
bench: release
	$(SWIFT) build -c release --product sheet-bench
	.build/release/sheet-bench --sheetctl .build/release/sheetctl

clean:
	rm -rf .build
