#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh Debian 12 machine. Idempotent and
# quick when everything is already there (each step checks before it installs).
#
#   1. Debian packages: the C libraries SwiftPM links (libcurl, OpenSSL, zlib, found via
#      pkg-config) and the tools the tests use (openssl, curl, iproute2, iptables).
#   2. .venv          Python 3 virtualenv with the third-party peers' libraries
#                     (Tests/Peers/requirements.txt: websockets, aiohttp, sse-starlette...).
#   3. .venv-autobahn Python 2.7 virtualenv with the Autobahn|Testsuite fuzzing server
#                     (Tests/Peers/requirements-autobahn.txt).
#
# Each virtualenv holds a stamp (.rt-deps-stamp) with the hash of its requirements file;
# it is rebuilt from scratch when the file changes. Set RT_SKIP_AUTOBAHN=1 to skip step 3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

say() { echo "install-deps: $*"; }
die() { echo "install-deps: error: $*" >&2; exit 1; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# --- 1. Debian packages -------------------------------------------------------------
apt_packages=(libcurl4-openssl-dev libssl-dev zlib1g-dev pkg-config openssl curl iproute2 iptables ca-certificates)
missing=()
for pkg in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

# The Python 3 used for .venv: the first python3 on PATH that can make a virtualenv with
# pip (pyenv's on the project machines; Debian's /usr/bin/python3 needs python3-venv).
find_python3() {
    local candidate
    for candidate in "${RT_PYTHON3:-}" "$(command -v python3 || true)" /usr/bin/python3; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}
python3_bin="$(find_python3 || true)"
if [ -z "$python3_bin" ]; then
    missing+=(python3 python3-venv)
fi

if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "missing packages (${missing[*]}) and no apt-get to install them"
    say "apt-get install ${missing[*]}"
    as_root apt-get update -qq || die "apt-get update failed (is the Debian mirror reachable?)"
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install ${missing[*]} failed"
fi
[ -n "$python3_bin" ] || python3_bin="$(find_python3 || true)"
[ -n "$python3_bin" ] || die "no Python 3.9+ with the venv module found, even after installing python3-venv"

# --- helpers for the virtualenvs --------------------------------------------------------
stamp_of() { # requirements file + this script's venv recipe version -> hash
    { cat "$1"; echo "recipe 1"; } | sha256sum | cut -d' ' -f1
}
is_current() { # venv-dir requirements-file
    [ -x "$1/bin/python" ] && [ -f "$1/.rt-deps-stamp" ] \
        && [ "$(cat "$1/.rt-deps-stamp")" = "$(stamp_of "$2")" ] \
        && "$1/bin/python" -c 'pass' 2>/dev/null
}

quiet_pip() { # venv requirements-file [pip options]: pip's output is shown only on failure
    local venv="$1" req="$2" log
    shift 2
    log="$(mktemp)"
    if "$venv/bin/python" -m pip install -q "$@" -r "$req" > "$log" 2>&1; then
        rm -f "$log"
        return 0
    fi
    cat "$log" >&2
    rm -f "$log"
    return 1
}

# pip reaches PyPI only; keep it quiet and non-interactive (CI has no stdin).
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# --- 2. .venv: Python 3 peers -------------------------------------------------------------
req3="Tests/Peers/requirements.txt"
if is_current .venv "$req3"; then
    say ".venv is up to date"
else
    say "creating .venv with $("$python3_bin" --version 2>&1) ($python3_bin)"
    rm -rf .venv
    "$python3_bin" -m venv .venv || die "could not create .venv with $python3_bin"
    quiet_pip .venv "$req3" || die "pip install -r $req3 failed (PyPI unreachable, or a pinned version gone?)"
    .venv/bin/python -c 'import websockets, aiohttp, aiohttp_sse, sse_starlette, starlette, uvicorn' \
        || die ".venv was built but its packages do not import"
    stamp_of "$req3" > .venv/.rt-deps-stamp
    say ".venv ready"
fi

# --- 3. .venv-autobahn: Python 2.7 fuzzing server -----------------------------------------
reqab="Tests/Peers/requirements-autobahn.txt"
find_python27() {
    local candidate prefix
    prefix="$(pyenv prefix 2.7.18 2>/dev/null || true)"
    for candidate in "${RT_PYTHON27:-}" "${prefix:+$prefix/bin/python2.7}" \
        "${PYENV_ROOT:-$HOME/.pyenv}/versions/2.7.18/bin/python2.7" /root/.pyenv/versions/2.7.18/bin/python2.7 \
        "$(command -v python2.7 || true)"; do
        [ -n "$candidate" ] && [ -x "$candidate" ] || continue
        "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (2, 7))' 2>/dev/null && { echo "$candidate"; return 0; }
    done
    return 1
}
if [ "${RT_SKIP_AUTOBAHN:-0}" = "1" ]; then
    say "RT_SKIP_AUTOBAHN=1: not installing the Autobahn fuzzing server"
elif is_current .venv-autobahn "$reqab"; then
    say ".venv-autobahn is up to date"
else
    python27="$(find_python27 || true)"
    [ -n "$python27" ] || die "the Autobahn fuzzing server needs CPython 2.7 (autobahntestsuite is Python 2 code), \
and none was found (looked at \$RT_PYTHON27, 'pyenv prefix 2.7.18', ~/.pyenv/versions/2.7.18, python2.7 on PATH). \
Debian 12 has no python2 package: install 2.7.18 with pyenv, point RT_PYTHON27 at one, or set RT_SKIP_AUTOBAHN=1."
    say "creating .venv-autobahn with Python 2.7 ($python27)"
    rm -rf .venv-autobahn
    .venv/bin/virtualenv -q -p "$python27" .venv-autobahn || die "virtualenv could not create a 2.7 environment with $python27"
    # --no-deps: the file pins the whole tree, so pip's old 2.7 resolver has nothing to guess.
    quiet_pip .venv-autobahn "$reqab" --no-deps || die "pip install -r $reqab failed (output above)"
    .venv-autobahn/bin/python -c 'import autobahntestsuite.fuzzing, twisted.internet.epollreactor' 2>/dev/null \
        || die "pip install -r $reqab failed: the fuzzing server does not import (see pip's output above)"
    stamp_of "$reqab" > .venv-autobahn/.rt-deps-stamp
    say ".venv-autobahn ready"
fi
