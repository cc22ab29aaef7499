#!/usr/bin/env bash
# Builds nxrt and runs every test (unit tests, CLI checks, acceptance suites) with CTest.
#   scripts/test.sh          Release build in build/release
#   scripts/test.sh --asan   Debug + AddressSanitizer/UBSan build in build/asan
# Installs missing dependencies first (scripts/bootstrap.sh; fast when all is present).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset=release
case "${1:-}" in
  --asan) preset=asan ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--asan]" >&2; exit 2 ;;
esac
scripts/bootstrap.sh
jobs=$(nproc)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs" --timeout 1200
