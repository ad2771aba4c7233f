# Quick start: `make demo` runs the main job, `make test` runs every test on a fresh machine.
SWIFT ?= swift

.PHONY: deps build demo test bench clean

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build

demo: deps
	$(SWIFT) run rtcat demo

test: deps
	$(SWIFT) build
	$(SWIFT) test

bench: deps
	$(SWIFT) run -c release RealtimeBenchmarks

clean:
	rm -rf .build
