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
# it is rebuilt from scratch when the file changes. The virtualenvs are made in a cache outside
# the clone, one per hash (RT_VENV_CACHE, default ~/.cache/swift-realtime), and .venv and
# .venv-autobahn link to them: another clone on the same machine reuses them instead of
# spending minutes in pip. Set RT_SKIP_AUTOBAHN=1 to skip step 3.
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

venv_cache="${RT_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/swift-realtime}"
# Points `link` at the cached virtualenv for `requirements`, making it with `make_venv DIR`
# first unless a current one is there (one maker at a time: two clones may run this at once).
provide_venv() { # link requirements make_venv
    local link="$1" req="$2" maker="$3" dir
    dir="$venv_cache/$(basename "$link" | sed "s/^\.//")-$(stamp_of "$req" | cut -c1-16)"
    mkdir -p "$venv_cache"
    exec 9> "$venv_cache/.lock"
    flock 9
    if is_current "$dir" "$req"; then
        say "$link: the cached virtualenv $dir"
    else
        rm -rf "$dir"
        "$maker" "$dir"
        stamp_of "$req" > "$dir/.rt-deps-stamp"
    fi
    flock -u 9
    rm -rf "$link"
    ln -s "$dir" "$link"
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
make_venv3() { # dir
    say "creating $1 with $("$python3_bin" --version 2>&1) ($python3_bin)"
    "$python3_bin" -m venv "$1" || die "could not create $1 with $python3_bin"
    quiet_pip "$1" "$req3" || die "pip install -r $req3 failed (PyPI unreachable, or a pinned version gone?)"
    "$1/bin/python" -c 'import websockets, aiohttp, aiohttp_sse, sse_starlette, starlette, uvicorn' \
        || die "$1 was built but its packages do not import"
}
if is_current .venv "$req3"; then
    say ".venv is up to date"
else
    provide_venv .venv "$req3" make_venv3
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
    make_venv27() { # dir
        say "creating $1 with Python 2.7 ($python27)"
        .venv/bin/python -m virtualenv -q -p "$python27" "$1" || die "virtualenv could not create a 2.7 environment with $python27"
        # --no-deps: the file pins the whole tree, so pip's old 2.7 resolver has nothing to guess.
        quiet_pip "$1" "$reqab" --no-deps || die "pip install -r $reqab failed (output above)"
        "$1/bin/python" -c 'import autobahntestsuite.fuzzing, twisted.internet.epollreactor' 2>/dev/null \
            || die "pip install -r $reqab failed: the fuzzing server does not import (see pip's output above)"
    }
    provide_venv .venv-autobahn "$reqab" make_venv27
    say ".venv-autobahn ready"
fi
