#!/bin/bash
# setup.sh — install what a fresh Debian 12 machine lacks to build and test augur:
# Debian's packages (Open MPI's for the MPI wrapper and tests/integration/test_mpi.sh),
# and the npm packages of the explore page's browser test
# (tests/explore, from its lockfile; chromium drives the page).
# Idempotent; run as root (or with sudo available).
set -euo pipefail
PACKAGES=(build-essential cmake pkg-config valgrind libsqlite3-dev sqlite3 libjansson-dev
          libelf-dev libdw-dev libzydis-dev libgsl-dev libyaml-dev libhwloc-dev zlib1g-dev libcmocka-dev jq hyperfine time
          libc6-dbg gfortran chromium libclang-14-dev llvm-14 libpolylib64-dev clang-14 libclang-rt-14-dev
          libopenmpi-dev openmpi-bin)
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
# The browser test of `augur explore` (tests/integration/test_explore_page.sh):
# playwright-core from tests/explore/package-lock.json; it drives Debian's
# chromium and downloads no browser.  It needs Node.js 20 or newer.
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    echo "setup: Node.js 20 or newer is needed for the explore page's browser test (found: $(node --version 2>/dev/null || echo none))" >&2
    exit 1
fi
EXPLORE_TESTS=$(cd "$(dirname "$0")/../tests/explore" && pwd)
want=$(cd "$EXPLORE_TESTS" && node -p "require('./package-lock.json').packages['node_modules/playwright-core'].version")
have=$(cd "$EXPLORE_TESTS" && node -p "require('./node_modules/playwright-core/package.json').version" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
    echo "setup: npm ci in tests/explore"
    (cd "$EXPLORE_TESTS" && npm ci --no-audit --no-fund --loglevel=error)
fi
