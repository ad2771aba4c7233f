#!/usr/bin/env bash
# Runs the Autobahn|Testsuite fuzzing server against a WebSocket client and fails unless
# every case passes.
#
# usage: scripts/autobahn.sh [--cases "1.* 2.*" | --full] [--exclude "12.* 13.*"] [--outdir DIR]
#                            [--timeout SECONDS] [--allow-non-strict] -- CLIENT [ARGS...]
#
# The client command runs with every `{URL}` in its arguments replaced by the server's
# ws://127.0.0.1:PORT address, and must speak the Autobahn client protocol
# (/getCaseCount, /runCase?case=N&agent=A, /updateReports?agent=A). Examples:
#   scripts/autobahn.sh -- swift run rtcat autobahn '{URL}' --agent swift-realtime
#   scripts/autobahn.sh --allow-non-strict -- .venv/bin/python Tests/Peers/autobahn_client.py '{URL}'
#
# Defaults: cases 1.* through 10.* plus a representative permessage-deflate subset of 12.*
# and 13.* (see DEFLATE_SUBSET below; `--full` runs every case of 1-10, 12 and 13),
# no exclusions, reports in reports/autobahn/ (index.json plus one HTML/JSON page per case),
# client timeout 1800 s.
# Fails (exit 1) when the client fails, when fewer cases were reported than the server
# ran, or on any case whose behavior is FAILED, NON-STRICT (a message before a bad frame was
# not echoed before the close; --allow-non-strict accepts it, for third-party clients) or
# UNIMPLEMENTED (a client that offers permessage-deflate must have it accepted in 12.x/13.x)
# or whose behaviorClose is FAILED or WRONG CODE. INFORMATIONAL outcomes pass. Prints counts
# by behavior and the ids of every case that is not plain OK.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
base_cases="1.* 2.* 3.* 4.* 5.* 6.* 7.* 8.* 9.* 10.*"
# 12.x (five data sets) and 13.x (seven parameter sets) each repeat 18 message sizes: 1000
# echoes per case, ~18 min for all 216 on this machine (the Python 2.7 server is the
# bottleneck, ~30 s for one 128 KiB case). The subset keeps every data set and parameter set
# with four sizes (~2-3 min): 16 B, 4 KiB, 32 KiB (a full 15-bit window) and 8 KiB
# fragmented into 256-byte frames.
# Listed one by one: the server's patterns are unanchored regexes ("12.*.1" also matches 12.1.10).
DEFLATE_SUBSET=""
for size in 1 5 8 11; do
    for set in 1 2 3 4 5; do DEFLATE_SUBSET="$DEFLATE_SUBSET 12.$set.$size"; done
    for set in 1 2 3 4 5 6 7; do DEFLATE_SUBSET="$DEFLATE_SUBSET 13.$set.$size"; done
done
cases="$base_cases$DEFLATE_SUBSET"
exclude=""
outdir="$root/reports/autobahn"
client_timeout=1800
allow_non_strict=0

die() { echo "autobahn: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --cases) cases="$2"; shift 2 ;;
        --exclude) exclude="$2"; shift 2 ;;
        --outdir) outdir="$2"; shift 2 ;;
        --timeout) client_timeout="$2"; shift 2 ;;
        --allow-non-strict) allow_non_strict=1; shift ;;
        --) shift; break ;;
        --full) cases="$base_cases 12.* 13.*"; shift ;;
        -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
        *) die "unknown option '$1' (the client command goes after --)" ;;
    esac
done
[ $# -gt 0 ] || die "no client command given (usage: scripts/autobahn.sh [options] -- CLIENT ARGS..., '{URL}' is replaced)"

ab_python="$root/.venv-autobahn/bin/python"
[ -x "$ab_python" ] || die "$ab_python is missing: run scripts/install-deps.sh (or make deps) first"
report_python="$root/.venv/bin/python"
[ -x "$report_python" ] || report_python="$(command -v python3 || true)"
[ -n "$report_python" ] || die "no Python 3 to read the report: run scripts/install-deps.sh"

json_list() { # words -> JSON array of strings
    local out="" w
    for w in $1; do out="$out${out:+, }\"$w\""; done
    echo "[$out]"
}

mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
rm -f "$outdir"/index.json "$outdir"/index.html "$outdir"/*_case_*.json "$outdir"/*_case_*.html
spec="$outdir/spec.json"
cat > "$spec" <<SPEC
{
  "outdir": "$outdir",
  "cases": $(json_list "$cases"),
  "exclude-cases": $(json_list "$exclude"),
  "exclude-agent-cases": {}
}
SPEC

server_out="$outdir/server.stdout"
server_log="$outdir/server.log"
: > "$server_out"
"$ab_python" "$root/Tests/Peers/autobahn_fuzzingserver.py" "$spec" > "$server_out" 2> "$server_log" &
server_pid=$!
cleanup() {
    if kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT

port=""
for _ in $(seq 1 300); do # up to 30 s: the first start compiles nothing, but twisted imports are slow
    port="$(awk '$1 == "PORT" { print $2 }' "$server_out")"
    expected="$(awk '$1 == "CASES" { print $2 }' "$server_out")"
    [ -n "$port" ] && [ -n "$expected" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$server_log" >&2; die "the fuzzing server exited during startup (log above)"; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$server_log" >&2; die "the fuzzing server did not report its port within 30 s"; }
url="ws://127.0.0.1:$port"

client=()
for arg in "$@"; do client+=("${arg//\{URL\}/$url}"); done
echo "autobahn: fuzzing server at $url, $expected cases ($cases; excluding $exclude)"
echo "autobahn: running: ${client[*]}"

start=$(date +%s)
set +e
timeout --kill-after=10 "$client_timeout" "${client[@]}"
client_status=$?
set -e
elapsed=$(( $(date +%s) - start ))
echo "autobahn: client finished in ${elapsed}s with status $client_status"

# The server writes index.json when the client calls /updateReports; give it a moment
# in case the client closed before the write finished.
for _ in $(seq 1 50); do [ -s "$outdir/index.json" ] && break; sleep 0.1; done
cleanup

status=0
"$report_python" - "$outdir/index.json" "$expected" "$allow_non_strict" <<'PY' || status=$?
import collections
import json
import sys

path, expected = sys.argv[1], int(sys.argv[2])
failing = {"FAILED", "UNIMPLEMENTED"} | (set() if sys.argv[3] == "1" else {"NON-STRICT"})
try:
    with open(path) as f:
        index = json.load(f)
except (OSError, ValueError) as exc:
    print(f"autobahn: no usable report at {path} ({exc}); did the client call /updateReports?")
    sys.exit(1)


def case_key(case_id):
    return tuple(int(part) for part in case_id.split("."))


failed = False
if not index:
    print("autobahn: the report names no agent: the client ran no case")
    sys.exit(1)
for agent, cases in sorted(index.items()):
    behaviors = collections.Counter(v["behavior"] for v in cases.values())
    closes = collections.Counter(v["behaviorClose"] for v in cases.values())
    print(f"autobahn: agent {agent}: {len(cases)} of {expected} cases reported")
    print("  behavior:      " + ", ".join(f"{k} {n}" for k, n in sorted(behaviors.items())))
    print("  behaviorClose: " + ", ".join(f"{k} {n}" for k, n in sorted(closes.items())))
    if len(cases) < expected:
        print(f"autobahn: FAIL: {expected - len(cases)} cases were never run")
        failed = True
    for case_id in sorted(cases, key=case_key):
        v = cases[case_id]
        bad = v["behavior"] in failing or v["behaviorClose"] in ("FAILED", "WRONG CODE")
        if bad or v["behavior"] != "OK" or v["behaviorClose"] != "OK":
            tag = "FAIL" if bad else "note"
            print(
                f"  {tag} {case_id}: behavior {v['behavior']}, close {v['behaviorClose']}, "
                f"remote close code {v.get('remoteCloseCode')}, {v.get('duration')} ms ({v.get('reportfile')})"
            )
        failed = failed or bad
sys.exit(1 if failed else 0)
PY

echo "autobahn: report: $outdir/index.html"
if [ "$client_status" -ne 0 ]; then
    echo "autobahn: FAILED: the client exited with status $client_status"
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "autobahn: FAILED: see the cases marked FAIL above"
    exit 1
fi
echo "autobahn: all cases passed"
