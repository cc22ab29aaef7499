#!/usr/bin/env bash
# Builds nxrt and runs every test (unit tests, CLI checks, acceptance suites) with CTest.
#   scripts/test.sh             what CI runs: the Release build in build/release and every test,
#                               then the sanitizer step (docs/testing.md, "The sanitizer step"):
#                               the tests labelled `sanitize` built with AddressSanitizer + UBSan
#                               in build/asan and run again
#   scripts/test.sh --release   the Release build and every test, without the sanitizer step
#   scripts/test.sh --sanitize  the sanitizer step alone
#   scripts/test.sh --asan      every test in the AddressSanitizer + UBSan build in build/asan
# Installs missing dependencies first (scripts/bootstrap.sh; fast when all is present).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
release=1
sanitizer_step=1
case "${1:-}" in
  --release) sanitizer_step=0 ;;
  --sanitize) release=0 ;;
  --asan) release=0; sanitizer_step=0 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--release | --sanitize | --asan]" >&2; exit 2 ;;
esac
scripts/bootstrap.sh
jobs=$(nproc)
if [ "$release" = 1 ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$jobs"
  ctest --preset release -j "$jobs" --timeout 1200
fi
if [ "$sanitizer_step" = 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs" --target nxrt_sanitize_tests
  ctest --preset asan -L sanitize -j "$jobs" --timeout 1200
elif [ "$release" = 0 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs" --timeout 1200
fi
