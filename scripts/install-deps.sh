#!/usr/bin/env bash
# Installs what the build and the tests need on a fresh Debian machine. Idempotent.
set -euo pipefail

need_apt=()
for pkg in libcurl4-openssl-dev libssl-dev zlib1g-dev openssl; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "install-deps: apt-get install ${need_apt[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
