#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz (built by the `fuzz` preset) for a while, from a seed
# corpus of real ONNX models, on one core:
#   tests/fuzz/fuzz.sh BINARY WORK_DIR SECONDS [extra libFuzzer flags...]
# Seeds: every model of the ONNX backend node tests, the real models of docs/testing.md under
# 1 MiB (from the bootstrap cache), tests/fuzz_regressions and make_regressions.py's models. WORK_DIR keeps the growing corpus
# (corpus/) and any crash, leak or timeout reproducer (artifacts/); the script exits non-zero
# when libFuzzer found one. Turn each reproducer into a file of tests/fuzz_regressions and a fix.
set -euo pipefail
binary=$1 work=$(realpath -m "$2") seconds=${3:-60}
shift 3 || shift $#
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
if [ -z "$(ls -A "$work/seeds")" ]; then
  for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
    cp "$m" "$work/seeds/$(basename "$(dirname "$m")").onnx"
  done
  find "$cache/models" -name '*.onnx' -size -1024k -exec cp {} "$work/seeds/" \; 2>/dev/null || true
  cp "$here/../fuzz_regressions/"* "$work/seeds/" 2>/dev/null || true
  /usr/bin/python3 "$here/make_regressions.py" "$work/seeds"
fi
# allocator_may_return_null: a model asking for terabytes gets nxrt's "cannot allocate", as it
# would without the sanitizer, instead of an ASan report. quarantine_size_mb and
# malloc_context_size: speed, as in random_campaign.sh. Flags of the caller's ASAN_OPTIONS come
# last and win.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:abort_on_error=1:\
quarantine_size_mb=16:malloc_context_size=5${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$binary" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=4096 \
  -max_len=262144 -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" \
  "$work/corpus" "$work/seeds"
