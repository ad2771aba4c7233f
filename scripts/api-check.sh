#!/usr/bin/env bash
# The public API of every library product against its committed list (api/<Product>.txt) and
# its budget (api/budgets: "<Product> <max symbols> [<max undocumented, default 0>]" per line). A change to a list fails the
# check until the list is rewritten (`make api-update`), so every change is deliberate; a
# product over its budget fails whatever the list says. Needs `swift build` first.
#
#   api-check.sh --check | --write
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:---check}"
cd "$root"
status=0
while read -r product budget undocumented; do
    case "$product" in ''|\#*) continue ;; esac
    graphs=".build/symbolgraph/$product"
    scripts/symbolgraph.sh "$graphs" "$product" > /dev/null
    python3 scripts/public-api.py "$graphs/$product.symbols.json" "$mode" "api/$product.txt" \
        --product "$product" --budget "$budget" --undocumented "${undocumented:-0}" || status=1
done < api/budgets
# Every library product of Package.swift has a budget.
for product in $(grep -oE '\.library\(name: "[A-Za-z]+"' Package.swift | sed -E 's/.*"([A-Za-z]+)"/\1/'); do
    grep -qE "^$product " api/budgets || { echo "public API: product $product has no budget in api/budgets"; status=1; }
done
exit "$status"
