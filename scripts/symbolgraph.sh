#!/usr/bin/env bash
# Extracts the symbol graph of one library product from the debug build into OUTDIR
# (default .build/symbolgraph). `Realtime` (the default) is the umbrella with every module it
# re-exports, `RealtimeMCP` comes with RealtimeJSON (its values); another product is its own
# module. Needs `swift build` first. Used by the public
# API check (scripts/api-check.sh, scripts/public-api.py) and the DocC build (scripts/docs.sh).
#
#   symbolgraph.sh [OUTDIR] [MODULE]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.build/symbolgraph}"
module="${2:-Realtime}"
modules="$root/.build/debug/Modules"
[ -d "$modules" ] || { echo "symbolgraph: no $modules: run 'swift build' first" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
maps=()
for m in CCurl COpenSSL CZlib CLinux; do
    maps+=(-Xcc "-fmodule-map-file=$root/Sources/$m/module.modulemap")
done
reexported=()
case "$module" in
    Realtime) reexported=(-experimental-allowed-reexported-modules=RealtimeCore,RealtimeIO,RealtimeSSE,RealtimeWebSocket) ;;
    RealtimeMCP) reexported=(-experimental-allowed-reexported-modules=RealtimeJSON) ;;
esac
swift-symbolgraph-extract -module-name "$module" -I "$modules" "${maps[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public \
    -skip-synthesized-members -emit-extension-block-symbols \
    "${reexported[@]}" -output-dir "$out"
