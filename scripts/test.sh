#!/usr/bin/env bash
# Builds nxrt and runs every test (unit tests, CLI checks, acceptance suites) with CTest.
#   scripts/test.sh             Release build in build/release, every test (what CI runs)
#   scripts/test.sh --sanitize  then the sanitizer step (docs/testing.md): the tests of the parts
#                               that take untrusted input (loader, validator, runtime, CPU EP
#                               kernels, C API, fuzz regression replays; CTest label `sanitize`)
#                               built with AddressSanitizer + UBSan in build/asan and run again
#   scripts/test.sh --asan      every test in the AddressSanitizer + UBSan build in build/asan
# Installs missing dependencies first (scripts/bootstrap.sh; fast when all is present).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset=release
sanitizer_step=0
case "${1:-}" in
  --asan) preset=asan ;;
  --sanitize) sanitizer_step=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--sanitize | --asan]" >&2; exit 2 ;;
esac
scripts/bootstrap.sh
jobs=$(nproc)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs" --timeout 1200
if [ "$sanitizer_step" = 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs" --target nxrt_sanitize_tests
  ctest --preset asan -L sanitize -j "$jobs" --timeout 1200
fi
