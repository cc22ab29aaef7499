#!/usr/bin/env bash
# The main job on a real model: installs what is missing, builds nxrt (Release) and inspects the
# Silero VAD v5 model (fetched by scripts/bootstrap.sh into the cache).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/bootstrap.sh
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target nxrt
build/release/tools/nxrt/nxrt inspect "$cache/models/silero_vad_v5.onnx"
