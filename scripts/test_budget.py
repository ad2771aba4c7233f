#!/usr/bin/env python3
"""The test suite's budget of wall time, counted from the sources.

- sleeping lines: calls that suspend or block for a duration (`Task.sleep`, `usleep`,
  `Thread.sleep`, `nanosleep`);
- wall-clock reads: `ContinuousClock.now`, `Date()`, `DispatchTime.now()` and the like;
- wall-clock expectations: `#expect`/`#require` lines that order (`<`, `>`, `<=`, `>=`) a value
  computed from a wall-clock read in the same file (followed through assignments);
- socket tests: `@Test` functions in files that open sockets or start processes;
- embedded tests: `@Test` functions in files whose code drives production code on the embedded
  stack (`ManualLoop`, `EmbeddedByteStream`, `ScriptedCurl`, `EmbeddedNetwork` and the rigs
  built on them), comments aside; also files, not socket ones, that use a top-level type of
  such a file (a suite's rig or helpers: `SocketIOClientTests.Rig`, `EmbeddedLLMWire`).

`--check` fails when the sleeping lines or the wall-clock expectations are over their limits
(Tests/README.md says why); `--list` prints the lines behind the counts.
"""
import pathlib
import re
import sys

MAX_SLEEPS = 10
MAX_WALL_EXPECTATIONS = 20

SLEEP = re.compile(r"Task\.sleep|usleep\(|Thread\.sleep|nanosleep\(")
WALL = re.compile(r"ContinuousClock\.now|ContinuousClock\(\)|SuspendingClock\(\)|\bDate\(\)|DispatchTime\.now|\.uptimeNanoseconds")
CLOCK_VAR = re.compile(r"\blet (\w+) = (?:ContinuousClock|SuspendingClock)\(\)")
ASSIGN = re.compile(r"\b(?:let|var)\s+(?:\(([^)]*)\)|(\w+))\s*(?::[^=]+)?=\s*(.+)")
REASSIGN = re.compile(r"^\s*(\w+)\s*=\s*(.+)")
EXPECT = re.compile(r"#(?:expect|require)\(")
ORDER = re.compile(r"(?<![-=<>!])(<=?|>=?)(?![>=])")
SOCKETS = re.compile(r"TestServer\(|ScriptedServer|PythonPeer|MCPPeer\.|ExampleProcess|SpawnedProcess|NetnsPair|TestProxy\(|BuiltExecutable|\bSocket\.(?!IO\b)")
TEST = re.compile(r"@Test\b")
TOP_LEVEL_TYPE = re.compile(r"^(?:@\S.*?\s)?(?:final\s+)?(?:struct|class|enum|actor)\s+(\w+)")
EMBEDDED = re.compile(
    r"\b(ManualLoop|EmbeddedByteStream|ScriptedCurl|EmbeddedNetwork|EmbeddedClient|EmbeddedSSEServer|"
    r"EmbeddedWebSocketServer|EmbeddedRig|EmbeddedSSE|EmbeddedWebSocket|EmbeddedGraphQLServer|EmbeddedEngineIOServer|EmbeddedMCPServer|"
    r"endsEmbeddedConnections)\b")


def code_lines(path):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        yield number, line.split(" //")[0] if '"' not in line else line


def wall_names(lines):
    """Names in a file whose value comes from the wall clock, followed through assignments."""
    clocks = {m.group(1) for _, line in lines for m in [CLOCK_VAR.search(line)] if m}
    clock_read = re.compile(WALL.pattern + ("|" + "|".join(rf"\b{c}\.now\b" for c in clocks) if clocks else ""))
    names = set()
    for _ in range(4):
        known = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
        for _, line in lines:
            m = ASSIGN.search(line) or REASSIGN.match(line)
            if not m:
                continue
            groups = m.groups()
            targets = (groups[0] or groups[1]) if len(groups) == 3 else groups[0]
            value = groups[-1]
            if clock_read.search(value) or (known and known.search(value)):
                names.update(t.strip().split(":")[0].strip() for t in targets.split(",") if t.strip())
    return clock_read, names


def embedded_paths(files):
    """Files that drive the embedded stack: directly, or through a top-level type of such a
    file (followed until nothing changes). Socket files are left to their own count."""
    direct = {path for path, lines, _ in files if any(EMBEDDED.search(line) for _, line in lines)}
    found = set(direct)
    while True:
        names = {m.group(1) for path, lines, _ in files if path in found
                 for _, line in lines for m in [TOP_LEVEL_TYPE.match(line)] if m}
        uses = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
        more = {path for path, lines, text in files
                if path not in found and uses and not SOCKETS.search(text)
                and any(uses.search(line) and not TOP_LEVEL_TYPE.match(line) for _, line in lines)}
        if not more:
            return found
        found |= more


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    sleeps, reads, expectations = [], [], []
    tests = socket_tests = socket_files = embedded_tests = 0
    embedded_files = []
    files = [(path, list(code_lines(path)), path.read_text()) for path in sorted(pathlib.Path("Tests").rglob("*.swift"))]
    embedded = embedded_paths(files)
    for path, lines, text in files:
        count = sum(1 for _, line in lines if TEST.search(line))
        tests += count
        if count and path in embedded:
            embedded_tests += count
            embedded_files.append(f"{count} {path}")
        if path.name.endswith("Tests.swift") and SOCKETS.search(text):
            socket_tests += count
            socket_files += 1
        clock_read, names = wall_names(lines)
        known = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
        for number, line in lines:
            where = f"{path}:{number}: {line.strip()}"
            if SLEEP.search(line):
                sleeps.append(where)
            if clock_read.search(line):
                reads.append(where)
            if EXPECT.search(line) and ORDER.search(line.split('"')[0]):
                head = line.split('"')[0]
                if clock_read.search(head) or (known and known.search(head)):
                    expectations.append(where)
    public = sum(1 for line in open("api/Realtime.txt") if line.strip()) if pathlib.Path("api/Realtime.txt").exists() else 0
    if mode == "--list":
        for kind, rows in (("sleep", sleeps), ("wall-clock expectation", expectations), ("wall-clock read", reads)):
            for row in rows:
                print(f"{kind}: {row}")
        for row in embedded_files:
            print(f"embedded: {row}")
    print(f"test budget: {len(sleeps)} sleeping lines (limit {MAX_SLEEPS}), {len(expectations)} wall-clock "
          f"expectations (limit {MAX_WALL_EXPECTATIONS}), {len(reads)} wall-clock reads, {socket_tests} of {tests} "
          f"@Test functions in {socket_files} socket or process files, {embedded_tests} on the embedded stack, "
          f"{public} public symbols")
    if mode == "--check":
        failed = False
        if len(sleeps) > MAX_SLEEPS:
            print("test budget: FAILED: too many sleeping lines:", *sleeps, sep="\n  ")
            failed = True
        if len(expectations) > MAX_WALL_EXPECTATIONS:
            print("test budget: FAILED: too many wall-clock expectations:", *expectations, sep="\n  ")
            failed = True
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
