#!/usr/bin/env bash
# A long random campaign with a replay binary's --mutate mode (tests/fuzz/replay_main.cpp), for
# builds without libFuzzer or beside the coverage-guided runs of fuzz.sh; one core.
#   tests/fuzz/random_campaign.sh BINARY WORK_DIR TOTAL_CASES [CASES_PER_PROCESS]
# Seeds as in fuzz.sh. Each process runs CASES_PER_PROCESS cases (default 2000) with its own seed;
# a process that dies (signal, sanitizer report, abort) leaves its current case, kept as
# WORK_DIR/crashes/crash-<sha1> with its stderr beside it. Prints the totals at the end:
#   cases N, processes P, crashes C (distinct D)
# and exits 1 when a case crashed (CTest's fuzz_campaign_* run a short campaign this way).
set -uo pipefail
binary=$1 work=$(realpath -m "$2") total=$3 per=${4:-2000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
mkdir -p "$work/seeds" "$work/crashes" "$work/run"
if [ -z "$(ls -A "$work/seeds")" ]; then
  for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
    cp "$m" "$work/seeds/$(basename "$(dirname "$m")").onnx"
  done
  find "$cache/models" -name '*.onnx' -size -1024k -exec cp {} "$work/seeds/" \; 2>/dev/null || true
  cp "$here/../fuzz_regressions/"* "$work/seeds/" 2>/dev/null || true
  /usr/bin/python3 "$here/make_regressions.py" "$work/seeds"
fi
# allocator_may_return_null: a model asking for terabytes gets nxrt's "cannot allocate". The
# rest is speed (docs/testing.md, "Sanitizer run time"): every model load forks libonnx's shape
# inference into a child (ir/onnx_loader.cpp, InferInChild), and fork copies the page tables of
# the whole sanitized heap, which ASan's default 256 MiB quarantine keeps large; 16 MiB and
# 5-frame allocation stacks cut CPU per case by 13%. Flags of the caller's ASAN_OPTIONS come last
# and win.
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:quarantine_size_mb=16:\
malloc_context_size=5${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
done_cases=0 processes=0 crashes=0 seed=${SEED:-1}
while [ "$done_cases" -lt "$total" ]; do
  n=$((total - done_cases < per ? total - done_cases : per))
  timeout 900 "$binary" --mutate="$n" --seed="$seed" --out="$work/run" "$work/seeds" \
    > /dev/null 2> "$work/run/stderr"
  rc=$?
  processes=$((processes + 1))
  if [ "$rc" -ne 0 ] && [ -f "$work/run/current" ]; then
    ran=$(grep -c '^cases ' "$work/run/stderr" || true)
    done_cases=$((done_cases + ran * 1000 + 1))
    sha=$(sha1sum "$work/run/current" | cut -c1-16)
    mv "$work/run/current" "$work/crashes/crash-$sha"
    tail -60 "$work/run/stderr" > "$work/crashes/crash-$sha.log"
    # The last report is the process's own: the ones before it come from the children that
    # libonnx's shape inference runs in (ir/onnx_loader.cpp), whose crashes nxrt survives.
    why=$(grep -E 'ERROR|runtime error|SUMMARY|unexpected status' "$work/run/stderr" | tail -1)
    [ "$rc" -eq 124 ] && why="no end within 900 s (a hang, or a very loaded machine)"
    echo "rc=$rc seed=$seed crash-$sha: $why"
    crashes=$((crashes + 1))
  else
    done_cases=$((done_cases + n))
  fi
  seed=$((seed + 1))
done
echo "cases $done_cases, processes $processes, crashes $crashes (distinct $(ls "$work/crashes" | grep -vc '\.log$'))"
[ "$crashes" -eq 0 ]
