#!/usr/bin/env bash
# Extracts the symbol graph of `import Realtime` (the umbrella and every module it re-exports)
# from the debug build into OUTDIR (default .build/symbolgraph). Needs `swift build` first.
# Used by the public API check (scripts/public-api.py) and the DocC build (scripts/docs.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.build/symbolgraph}"
modules="$root/.build/debug/Modules"
[ -d "$modules" ] || { echo "symbolgraph: no $modules: run 'swift build' first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
maps=()
for m in CCurl COpenSSL CZlib CLinux; do
    maps+=(-Xcc "-fmodule-map-file=$root/Sources/$m/module.modulemap")
done
swift-symbolgraph-extract -module-name Realtime -I "$modules" "${maps[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public \
    -skip-synthesized-members -emit-extension-block-symbols \
    -experimental-allowed-reexported-modules=RealtimeCore,RealtimeIO,RealtimeSSE,RealtimeWebSocket,RealtimeLLM \
    -output-dir "$out"
