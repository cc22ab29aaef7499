#!/usr/bin/env bash
# The main job on a real model: installs what is missing, builds nxrt (Release), shows what the
# CPU EP claims in Silero VAD v5 and runs one 32 ms chunk of generated 16 kHz audio through it
# (the output is the speech probability and the next state).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
model="$cache/models/silero_vad_v5.onnx"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target nxrt
nxrt=build/release/tools/nxrt/nxrt
"$nxrt" inspect "$model"
"$nxrt" claims "$model" | head -n 20
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The sample rate is an int64 scalar the model checks: feed 16000; audio and state are generated.
/usr/bin/python3 -c "import numpy, sys; numpy.save(sys.argv[1], numpy.array(16000, dtype=numpy.int64))" "$work/sr.npy"
"$nxrt" run "$model" --input "sr=$work/sr.npy" --random --seed 1 --stats
