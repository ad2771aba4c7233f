#!/usr/bin/env python3
"""Type-checks every ```swift block of the docs against the debug build, so no sample in the
README, the DocC catalog or the other guides can stop compiling unnoticed.

Each block is compiled on its own as a program's main file (top-level `try`/`await` allowed),
so every sample is complete: it imports what it uses and declares what it needs. A block
that imports PackageDescription is checked as a package manifest. Needs `swift build` first.

  check-doc-samples.py [FILE.md ...]     default: README.md, *.md guides and the DocC catalog
"""
import concurrent.futures
import functools
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["README.md", "CONTRIBUTING.md", "Tests/README.md", "Benchmarks/README.md", "Fuzz/README.md",
           "Examples/*/README.md", "Sources/*/*.docc/**/*.md"]


def blocks(path):
    """(line number, code) of each ```swift block."""
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^([ \t]*)```swift[ \t]*\n(.*?)^\1```[ \t]*$", text, re.M | re.S):
        indent = m.group(1)
        code = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in m.group(2).split("\n"))
        yield text.count("\n", 0, m.start()) + 1, code


@functools.cache
def swift_lib():
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(
        subprocess.check_output(["which", "swiftc"], text=True).strip()))), "lib", "swift")


def command(code, file):
    if "import PackageDescription" in code:
        return ["swiftc", "-typecheck", "-I", os.path.join(swift_lib(), "pm", "ManifestAPI"),
                "-package-description-version", "6.0", file]
    cmd = ["swiftc", "-typecheck", "-swift-version", "6", "-I", os.path.join(ROOT, ".build/debug/Modules")]
    for m in ("CCurl", "COpenSSL", "CZlib", "CLinux"):
        cmd += ["-Xcc", f"-fmodule-map-file={ROOT}/Sources/{m}/module.modulemap"]
    return cmd + [file]


def check(job):
    """Type-checks one sample; returns the compiler's stderr on failure, else None."""
    code, sample = job
    r = subprocess.run(command(code, sample), capture_output=True, text=True)
    return r.stderr if r.returncode != 0 else None


def main():
    patterns = sys.argv[1:] or DEFAULT
    files = sorted({f for p in patterns for f in glob.glob(os.path.join(ROOT, p), recursive=True)})
    if not os.path.isdir(os.path.join(ROOT, ".build/debug/Modules")):
        print("doc samples: no debug build; run `swift build` first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        jobs, origins = [], []
        for path in files:
            for line, code in blocks(path):
                name = "Package.swift" if "import PackageDescription" in code else "main.swift"
                sample = os.path.join(tmp, str(len(jobs)), name)
                os.makedirs(os.path.dirname(sample))
                with open(sample, "w") as f:
                    f.write(code)
                jobs.append((code, sample))
                origins.append((os.path.relpath(path, ROOT), line, sample))
        # One compiler per core: each sample is independent, and the check runs in `make test`.
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(check, jobs))
    failed = 0
    for (rel, line, sample), stderr in zip(origins, results):
        if stderr is None:
            continue
        failed += 1
        print(f"doc samples: {rel}:{line}: does not compile")
        print(re.sub(re.escape(sample), f"{rel}:{line}+", stderr).rstrip())
    print(f"doc samples: {len(jobs)} checked, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
