#!/usr/bin/env bash
# Builds the DocC catalogs, failing on any warning, then type-checks every code sample of the
# docs: Sources/Realtime/Realtime.docc with every public symbol of `import Realtime`, and
# Sources/RealtimeLLM/RealtimeLLM.docc with the LLM kit's.
#   scripts/docs.sh [OUTDIR]    default .build/docs (Realtime.doccarchive, RealtimeLLM.doccarchive)
# Needs `swift build` first. Open an archive with any DocC viewer, or serve it with
# `docc preview`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
outdir="${1:-$root/.build/docs}"
for module in Realtime RealtimeLLM; do
    out="$outdir/$module.doccarchive"
    graphs="$root/.build/docs/symbolgraph-$module"
    "$root/scripts/symbolgraph.sh" "$graphs" "$module"
    rm -rf "$out"
    mkdir -p "$outdir"
    docc convert "$root/Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.swift-realtime.$module" \
        --warnings-as-errors --output-path "$out" 2>&1 | grep -v '^$' || true
    [ -f "$out/index.html" ] || [ -d "$out/data" ] || { echo "docs: FAILED: docc convert of $module (warnings are errors, see above)" >&2; exit 1; }
    echo "docs: DocC catalog built without warnings: ${out#$root/}"
done
python3 "$root/scripts/check-doc-samples.py"
