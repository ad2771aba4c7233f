#!/usr/bin/env python3
"""The public API of `import Realtime`, one line per symbol, from the symbol graph
(scripts/symbolgraph.sh). A committed copy (api/public-api.txt) is compared in CI, so every
change to the public surface is deliberate.

  public-api.py GRAPH.json --check api/public-api.txt   exit 1 and print the diff if it changed
  public-api.py GRAPH.json --write api/public-api.txt   update the committed list
  public-api.py GRAPH.json --summary                    symbols per module
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


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    current = lines(json.load(open(sys.argv[1])))
    mode = sys.argv[2]
    if mode == "--summary":
        counts = collections.Counter(line.split("\t", 1)[0] for line in current)
        for module, n in sorted(counts.items()):
            print(f"{module}: {n}")
        print(f"total: {len(current)}")
        return 0
    path = sys.argv[3]
    if mode == "--write":
        with open(path, "w") as f:
            f.write("\n".join(current) + "\n")
        return 0
    if mode == "--check":
        committed = open(path).read().splitlines()
        if committed == current:
            print(f"public API: unchanged ({len(current)} symbols)")
            return 0
        print("public API changed; if deliberate, run `make api-update` and commit api/public-api.txt:")
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(committed, current, "committed", "built", lineterm="", n=0))
        return 1
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main())
