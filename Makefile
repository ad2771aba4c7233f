# Quick start: `make demo` runs the main job, `make test` runs every Swift test on a fresh machine.
#
#   make deps       Debian packages, .venv (Python peers), .venv-autobahn (fuzzing server)
#   make build      swift build
#   make test       deps + swift build --build-tests + the API and test-budget checks + every
#                   Swift test in one `swift test` run
#   make check      what CI runs: `make test`, then the docs check, fuzzing, ThreadSanitizer and the
#                   Autobahn conformance run
#   make docs       the DocC catalog with --warnings-as-errors, then every ```swift sample type-checked
#                   (scripts/docs.sh; needs a build)
#   make autobahn   only the Autobahn run (sections 1-10 + a permessage-deflate subset of 12-13)
#                   against rtcat; report in reports/autobahn/
#   make autobahn-full  every case of 1-10, 12 and 13 (~25 min: 12/13 are 216 compression cases)
#   make demo       swift run rtcat demo
#   make bench      swift run -c release RealtimeBenchmarks
#   make fuzz       every libFuzzer target in Fuzz/ for FUZZ_SECONDS (default 60) each
#   make fuzz-ci    the same for 10 s each (part of `make check`)
#   make test-tsan  the whole suite under ThreadSanitizer (.build-tsan; scripts/sanitize.sh)
#   make test-asan  the whole suite under AddressSanitizer + LeakSanitizer (.build-asan)
#   make test-tsan-ci  the concurrency-heavy suites under ThreadSanitizer (part of `make check`)
#   make test-unit  only the pure targets (no socket, no process), after a build
#   make test-budget   sleeping lines and wall-clock expectations in Tests within their limits
#   make api-check  the public API of every library product against api/<Product>.txt and its
#                   budget in api/budgets (part of `make test`)
#   make api-update rewrite api/<Product>.txt after a deliberate change to a public API
SWIFT ?= swift
FUZZ_SECONDS ?= 60

# The suites `make test` runs under ThreadSanitizer: the channel, the event loop, the
# client and both transports (the whole suite is `make test-tsan`).
TSAN_CI_FILTER ?= BoundedChannel|AsyncBoundedQueue|EventLoop|TimerHeap|RealtimeClient|EmbeddedClient|EmbeddedFanIn|EmbeddedLLM|EmbeddedOpenAIRealtime|EmbeddedMCP|EmbeddedHostile|GraphQLClient|SocketIOClient|WebSocketTransport|WebSocketTestServer|SSETransport|TestServer

# The Swift tests run in one `swift test` run, at most TEST_WIDTH tests at a time: every
# test at once (1,165 on two cores) starts the socket suites together and starves them past
# their time limits (Tests/README.md). The suites that measure memory or load the machine run
# in child processes of their own (ChildTestProcess), so nothing needs a run to itself.
TEST_WIDTH ?= 12
# The pure targets, for a quick `make test-unit`.
UNIT_TARGETS ?= RealtimeCoreTests|RealtimeLLMTests

# The Autobahn step of `make check`: 1 runs the fuzzing server against `rtcat autobahn`
# and fails on any FAILED case; 0 skips it with a message. `make AUTOBAHN=0 check`
# overrides it for one run.
AUTOBAHN ?= 1
# The client command; scripts/autobahn.sh replaces {URL} with ws://127.0.0.1:PORT.
AUTOBAHN_CLIENT ?= $(SWIFT) run rtcat autobahn '{URL}' --agent swift-realtime

.PHONY: deps build demo docs test test-unit check test-budget test-autobahn autobahn autobahn-full autobahn-selftest bench clean \
	fuzz fuzz-ci test-tsan test-asan test-tsan-ci api-check api-update

deps:
	./scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The demo needs only the build's C libraries: not the Autobahn server (Python 2.7).
demo:
	RT_SKIP_AUTOBAHN=1 ./scripts/install-deps.sh
	$(SWIFT) run rtcat demo

# One build for everything: `swift build` and then `swift test` would compile the package
# twice (the test build differs), which costs minutes on 2 cores.
test: deps
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory api-check
	@$(MAKE) --no-print-directory test-budget
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build

# The pure computation only (no socket, no process): seconds, for the edit-test loop.
test-unit:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '^($(UNIT_TARGETS))\.'

check: test
	@$(MAKE) --no-print-directory docs
	@$(MAKE) --no-print-directory fuzz-ci
	@$(MAKE) --no-print-directory test-tsan-ci
	@$(MAKE) --no-print-directory test-autobahn

test-budget:
	python3 scripts/test_budget.py --check

# The public API of every library product, from the symbol graphs of the debug build: a
# change fails the check until api/<Product>.txt is updated with it (`make api-update`), so
# every change is deliberate; a product over its budget (api/budgets) fails either way.
api-check:
	scripts/api-check.sh --check

api-update:
	scripts/api-check.sh --write

# The DocC catalog (no warning allowed) and the docs' code samples, against the debug build.
docs:
	./scripts/docs.sh

# libFuzzer targets (Fuzz/README.md); each fails the run on a crash or a broken invariant.
fuzz: deps
	Fuzz/fuzz.sh --seconds $(FUZZ_SECONDS)

fuzz-ci:
	Fuzz/fuzz.sh --seconds 10

# Sanitizer runs build in their own directories, so they never invalidate .build.
test-tsan: deps
	SWIFT=$(SWIFT) scripts/sanitize.sh thread

test-asan: deps
	SWIFT=$(SWIFT) scripts/sanitize.sh address

test-tsan-ci:
	SWIFT=$(SWIFT) scripts/sanitize.sh thread --filter '$(TSAN_CI_FILTER)'

test-autobahn:
ifeq ($(AUTOBAHN),1)
	./scripts/autobahn.sh -- $(AUTOBAHN_CLIENT)
else
	@echo "autobahn: SKIPPED: the Autobahn conformance run is off (AUTOBAHN=0 in the Makefile) until"
	@echo "autobahn: 'rtcat autobahn' exists; run it by hand with 'make autobahn'."
endif

autobahn: deps
	./scripts/autobahn.sh -- $(AUTOBAHN_CLIENT)

autobahn-full: deps
	./scripts/autobahn.sh --full -- $(AUTOBAHN_CLIENT)

# Checks the harness itself (fuzzing server + report parser) with the Python `websockets`
# client. 7.1.5 is excluded: websockets answers a close between fragments with 1002,
# which Autobahn marks FAILED/WRONG CODE; NON-STRICT is allowed: websockets fails the
# connection before it echoes a message that came in one burst with a bad frame.
autobahn-selftest: deps
	./scripts/autobahn.sh --exclude "12.* 13.* 7.1.5" --allow-non-strict --outdir reports/autobahn-selftest \
		-- .venv/bin/python Tests/Peers/autobahn_client.py '{URL}' --agent python-websockets

bench: deps
	$(SWIFT) run -c release RealtimeBenchmarks

clean:
	rm -rf .build .build-fuzz .build-tsan .build-asan reports
