#!/usr/bin/env bash
# The main job on a real model: installs what is missing, builds nxrt (Release), shows what the
# CPU EP claims in Silero VAD v5 and runs one 32 ms chunk of a generated 16 kHz tone through it
# (the output is the speech probability and the next LSTM state).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
model="$cache/models/silero_vad_v5.onnx"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target nxrt
nxrt=build/release/tools/nxrt/nxrt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nxrt" inspect "$model"
# The first lines of the placement (the whole text lists every If branch).
"$nxrt" claims "$model" > "$work/claims.txt"
head -n 20 "$work/claims.txt"
# One chunk of 512 samples at 16 kHz: a 220 Hz tone, a zero LSTM state and the sample rate.
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
t = np.arange(512) / 16000.0
np.save(f"{work}/input.npy", (0.5 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)[None, :])
np.save(f"{work}/state.npy", np.zeros((2, 1, 128), np.float32))
np.save(f"{work}/sr.npy", np.array(16000, dtype=np.int64))
PY
"$nxrt" run "$model" --input "input=$work/input.npy" --input "state=$work/state.npy" \
  --input "sr=$work/sr.npy" --stats
