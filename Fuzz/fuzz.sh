#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets and runs each for a bounded time; fails when
# any target crashes or breaks an invariant. See Fuzz/README.md.
#
#   Fuzz/fuzz.sh [--seconds N] [--jobs J] [--build-only] [Target...]
#
# Each target is RealtimeCore's sources (one module, compiled once with -sanitize=fuzzer,
# address, over RealtimeJSON, its one dependency) plus Fuzz/Support and one
# Fuzz/Targets/<Target>Fuzz.swift. SwiftPM cannot add -sanitize=fuzzer to a single target,
# so this calls swiftc directly; the WebSocket target adds the two zlib files of
# RealtimeWebSocket.
# Everything goes to .build-fuzz/ (binaries, the corpus each run grows, crash artifacts);
# the seed corpus in Fuzz/Corpus/<Target>/ is read, never written.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out=.build-fuzz
seconds=60
jobs="$(nproc 2>/dev/null || echo 1)"
build_only=0
selected=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) selected+=("$1"); shift ;;
    esac
done

say() { echo "fuzz: $*"; }

all_targets=()
for f in Fuzz/Targets/*Fuzz.swift; do
    name="$(basename "$f" Fuzz.swift)"
    all_targets+=("$name")
done
[ ${#selected[@]} -gt 0 ] || selected=("${all_targets[@]}")

# Extra sources and flags per target.
extra_sources() {
    case "$1" in
        WebSocketFrames) echo "Sources/RealtimeWebSocket/WebSocketInflater.swift Sources/RealtimeWebSocket/WebSocketDeflater.swift" ;;
    esac
}
extra_flags() {
    case "$1" in
        WebSocketFrames) echo "-I Sources/CZlib -lz" ;;
    esac
}

swift_flags=(-sanitize=fuzzer,address -O -g -use-ld=lld -parse-as-library -swift-version 6
    -enable-upcoming-feature ExistentialAny -package-name swift_realtime)

# newer_than OUTPUT SOURCES...: true when OUTPUT is missing or older than a source.
newer_than() {
    local output="$1"; shift
    [ -e "$output" ] || return 0
    [ -n "$(find "$@" -newer "$output" -print -quit)" ]
}

mkdir -p "$out/core" "$out/bin" "$out/corpus" "$out/artifacts" "$out/logs"
start=$(date +%s)
json_sources=$(find Sources/RealtimeJSON -name '*.swift' | sort)
core_sources=$(find Sources/RealtimeCore -name '*.swift' | sort)
if newer_than "$out/core/RealtimeJSON.o" $json_sources Fuzz/fuzz.sh; then
    say "compiling RealtimeJSON with -sanitize=fuzzer,address"
    swiftc "${swift_flags[@]}" -wmo -module-name RealtimeJSON \
        -emit-module -emit-module-path "$out/core/RealtimeJSON.swiftmodule" \
        -c -o "$out/core/RealtimeJSON.o" $json_sources
fi
if newer_than "$out/core/RealtimeCore.o" $core_sources "$out/core/RealtimeJSON.o" Fuzz/fuzz.sh; then
    say "compiling RealtimeCore with -sanitize=fuzzer,address"
    # -enable-testing: targets reach internal helpers (the UTF-8 validators) with @testable.
    swiftc "${swift_flags[@]}" -wmo -enable-testing -module-name RealtimeCore -I "$out/core" \
        -emit-module -emit-module-path "$out/core/RealtimeCore.swiftmodule" \
        -c -o "$out/core/RealtimeCore.o" $core_sources
fi
# compile_target NAME: one target binary, from inside the build directory (with -g the
# driver leaves module files in the working directory).
compile_target() {
    local t="$1"
    # shellcheck disable=SC2046
    (cd "$out/bin" && swiftc "${swift_flags[@]}" -wmo -module-name "${t}Fuzz" -I "$root/$out/core" \
        $(extra_flags "$t" | sed "s|Sources/|$root/Sources/|g") \
        "$root"/Fuzz/Support/*.swift "$root/Fuzz/Targets/${t}Fuzz.swift" \
        $(extra_sources "$t" | sed "s|Sources/|$root/Sources/|g") \
        "$root/$out/core/RealtimeCore.o" "$root/$out/core/RealtimeJSON.o" -o "$t")
}

# Targets compile $jobs at a time (each is small; linking dominates).
pids=(); names=(); failed=()
reap() { # wait for the oldest job still running
    local pid="${pids[0]}" name="${names[0]}"
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
    if ! wait "$pid"; then failed+=("$name"); fi
}
for t in "${selected[@]}"; do
    src="Fuzz/Targets/${t}Fuzz.swift"
    [ -f "$src" ] || { echo "fuzz: no target $t (have: ${all_targets[*]})" >&2; exit 2; }
    # shellcheck disable=SC2046
    newer_than "$out/bin/$t" "$src" Fuzz/Support $(extra_sources "$t") "$out/core/RealtimeCore.o" "$out/core/RealtimeJSON.o" || continue
    say "compiling $t"
    while [ ${#pids[@]} -ge "$jobs" ]; do reap; done
    compile_target "$t" & pids+=($!); names+=("$t")
done
while [ ${#pids[@]} -gt 0 ]; do reap; done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: compiling ${failed[*]}" >&2
    exit 1
fi
say "build took $(( $(date +%s) - start )) s"
[ "$build_only" = 0 ] || exit 0

# run_target NAME: one bounded libFuzzer run; its log goes to $out/logs/NAME.log.
run_target() {
    local t="$1" args=()
    mkdir -p "$out/corpus/$t"
    [ -f "Fuzz/Dictionaries/$t.dict" ] && args+=("-dict=Fuzz/Dictionaries/$t.dict")
    # The first directory receives the inputs the run finds; the seed corpus comes second so
    # it is only read.
    args+=("$out/corpus/$t")
    [ -d "Fuzz/Corpus/$t" ] && args+=("Fuzz/Corpus/$t")
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: the parsers' limits are far
    # below it, so crossing it is a leak or an unbounded buffer.
    # SWIFT_BACKTRACE: the Swift runtime's crash handler reads the crashed thread's stack,
    # which AddressSanitizer reports as an underflow, hiding the real message.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" "$out/bin/$t" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$out/artifacts/$t-" "${args[@]}" \
        > "$out/logs/$t.log" 2>&1
}

# Workers take targets in order, at most $jobs at once.
say "running ${#selected[@]} target(s) for $seconds s each, $jobs at a time"
pids=(); names=(); failed=()
for t in "${selected[@]}"; do
    while [ ${#pids[@]} -ge "$jobs" ]; do reap; done
    run_target "$t" & pids+=($!); names+=("$t")
done
while [ ${#pids[@]} -gt 0 ]; do reap; done

printf '%-20s %12s %10s %8s  %s\n' target executions "exec/s" corpus result
for t in "${selected[@]}"; do
    log="$out/logs/$t.log"
    runs=$(grep -o 'stat::number_of_executed_units:[[:space:]]*[0-9]*' "$log" | tail -n 1 | awk '{print $2}')
    rate=$(grep -o 'stat::average_exec_per_sec:[[:space:]]*[0-9]*' "$log" | tail -n 1 | awk '{print $2}')
    units=$(ls "$out/corpus/$t" | wc -l)
    result=ok
    for f in "${failed[@]}"; do [ "$f" = "$t" ] && result=FAILED; done
    printf '%-20s %12s %10s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$units" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    for t in "${failed[@]}"; do
        echo
        echo "== fuzz: $t FAILED ($out/logs/$t.log); the input is in $out/artifacts/$t-* =="
        grep -v -E '^#[0-9]+' "$out/logs/$t.log" | tail -n 40
    done
    echo "fuzz: replay one with: $out/bin/<Target> $out/artifacts/<file>"
    echo "fuzz: FAILED: ${failed[*]} (a crash or a broken invariant)"
    exit 1
fi
say "all targets ran $seconds s without a crash ($(( $(date +%s) - start )) s in all)"
