#!/usr/bin/env bash
# Builds the DocC catalog (Sources/Realtime/Realtime.docc) with every public symbol of
# `import Realtime`, failing on any warning, then type-checks every code sample of the docs.
#   scripts/docs.sh [OUTDIR]    default .build/docs/Realtime.doccarchive
# Needs `swift build` first. Open the archive with any DocC viewer, or serve
# OUTDIR with `docc preview`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/.build/docs/Realtime.doccarchive}"
graphs="$root/.build/docs/symbolgraph"
"$root/scripts/symbolgraph.sh" "$graphs"
rm -rf "$out"
mkdir -p "$(dirname "$out")"
docc convert "$root/Sources/Realtime/Realtime.docc" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Realtime --fallback-bundle-identifier dev.swift-realtime.Realtime \
    --warnings-as-errors --output-path "$out" 2>&1 | grep -v '^$' || true
[ -f "$out/index.html" ] || [ -d "$out/data" ] || { echo "docs: FAILED: docc convert (warnings are errors, see above)" >&2; exit 1; }
echo "docs: DocC catalog built without warnings: ${out#$root/}"
python3 "$root/scripts/check-doc-samples.py"
