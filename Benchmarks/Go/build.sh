#!/usr/bin/env bash
# Builds the Go comparison client of the `scale` benchmark (Benchmarks/Go/scale) from Debian's
# packages, offline: golang-go, golang-github-gorilla-websocket-dev and
# golang-github-donovanhide-eventsource-dev. Prints the binary's path; exits 1 when Go or the
# libraries are missing (the benchmark then leaves the Go rows out).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/.build/go/scale"
command -v go >/dev/null || { echo "build.sh: go is not installed (apt-get install golang-go)" >&2; exit 1; }
for lib in github.com/gorilla/websocket github.com/donovanhide/eventsource; do
  [ -d "/usr/share/gocode/src/$lib" ] || { echo "build.sh: $lib is missing (Debian's golang-*-dev package)" >&2; exit 1; }
done
mkdir -p "$(dirname "$out")"
cd "$root/Benchmarks/Go/scale"
GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE="$root/.build/go/cache" go build -o "$out" .
echo "$out"
