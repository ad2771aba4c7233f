#!/usr/bin/env python3
"""The public API of one library product, one line per symbol, from the symbol graph
(scripts/symbolgraph.sh). A committed copy (api/<Product>.txt) is compared in CI, so every
change to the public surface is deliberate (scripts/api-check.sh runs it for every product).

  public-api.py GRAPH.json --check api/P.txt [--product P --budget N]   exit 1 and print the diff
                                                                        if it changed or is over N
  public-api.py GRAPH.json --write api/P.txt                            update the committed list
  --undocumented N   also fail when more than N public symbols have no doc comment (listed)
  public-api.py GRAPH.json --summary                                    symbols per module
"""
import collections
import difflib
import json
import re
import sys


def module_of(symbol):
    uri = symbol.get("location", {}).get("uri", "")
    m = re.search(r"/Sources/([^/]+)/", uri)
    return m.group(1) if m else "?"


def lines(graph):
    out = set()
    for s in graph["symbols"]:
        decl = "".join(f["spelling"] for f in s.get("declarationFragments", []))
        decl = re.sub(r"\s+", " ", decl).strip()
        path = ".".join(s["pathComponents"])
        kind = s["kind"]["identifier"].removeprefix("swift.")
        if kind == "extension":
            continue  # the members are listed; the block adds nothing
        out.add(f"{module_of(s)}\t{kind}\t{path}\t{decl}")
    return sorted(out)


def undocumented(graph):
    out = set()
    for s in graph["symbols"]:
        uri = s.get("location", {}).get("uri", "")
        if s["kind"]["identifier"] == "swift.extension" or "/Sources/" not in uri or s.get("docComment"):
            continue
        where = f"{uri.split('/Sources/')[1]}:{s['location']['position']['line'] + 1}"
        out.add(f"{where}\t{'.'.join(s['pathComponents'])}")
    return sorted(out)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    graph = json.load(open(sys.argv[1]))
    current = lines(graph)
    mode = sys.argv[2]
    if mode == "--summary":
        counts = collections.Counter(line.split("\t", 1)[0] for line in current)
        for module, n in sorted(counts.items()):
            print(f"{module}: {n}")
        print(f"total: {len(current)}")
        return 0
    path = sys.argv[3]
    options = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    product = options.get("--product", "Realtime")
    budget = int(options["--budget"]) if "--budget" in options else None
    over = budget is not None and len(current) > budget
    if over:
        print(f"public API: {product} has {len(current)} symbols, over its budget of {budget} (api/budgets)")
    missing = undocumented(graph)
    allowed = int(options.get("--undocumented", "0"))
    if len(missing) > allowed:
        print(f"public API: {product} has {len(missing)} public symbols without a doc comment (allowed {allowed}):")
        sys.stdout.writelines(f"  {m}\n" for m in missing)
        over = True
    if mode == "--write":
        with open(path, "w") as f:
            f.write("\n".join(current) + "\n")
        return 1 if over else 0
    if mode == "--check":
        committed = open(path).read().splitlines() if __import__("os").path.exists(path) else []
        if committed == current:
            print(f"public API: {product} unchanged ({len(current)} symbols, budget {budget})")
            return 1 if over else 0
        print(f"public API of {product} changed; if deliberate, run `make api-update` and commit {path}:")
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(committed, current, "committed", "built", lineterm="", n=0))
        return 1
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())
