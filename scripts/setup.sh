#!/bin/bash
# setup.sh — install what a fresh Debian 12 machine lacks to build and test augur.
# Idempotent; run as root (or with sudo available).
set -euo pipefail
PACKAGES=(build-essential cmake pkg-config valgrind libsqlite3-dev sqlite3 libjansson-dev
          libelf-dev libdw-dev libzydis-dev libgsl-dev libyaml-dev libhwloc-dev zlib1g-dev libcmocka-dev jq hyperfine time
          libc6-dbg gfortran)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
