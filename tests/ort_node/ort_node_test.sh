#!/bin/sh
# tests/ort_node/ort_node_test.sh: onnxruntime-node@1.30.0, the real JS client, on nxrt's
# libonnxruntime.so.1, against the same package on ONNX Runtime 1.30's library.
#
#   ort_node_test.sh ORT_NODE_PREFIX NXRT_LIBRARY INPUTS_TOOL WORK_DIR
#
# ORT_NODE_PREFIX is where scripts/bootstrap.sh installed the package (npm --ignore-scripts):
# it is left untouched and runs ORT. The test makes a copy of it in WORK_DIR (hard links, then
# the copy's bin/napi-v6/linux/x64/libonnxruntime.so.1 replaced by nxrt's), writes the real
# models' fixed-seed inputs, runs run_models.js on ORT's package to record the outputs and on
# the copy to compare with them.
set -eu
prefix=$1 nxrt_library=$2 inputs_tool=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
package=node_modules/onnxruntime-node
library=bin/napi-v6/linux/x64/libonnxruntime.so.1
if [ ! -f "$prefix/$package/$library" ]; then
  echo "ort_node_test: onnxruntime-node is not installed in $prefix; run scripts/bootstrap.sh" >&2
  exit 1
fi
command -v node >/dev/null || { echo "ort_node_test: node not found; run scripts/bootstrap.sh" >&2; exit 1; }

rm -rf "$work/nxrt_package" "$work/inputs"
mkdir -p "$work/nxrt_package"
cp -al "$prefix/node_modules" "$work/nxrt_package/"
rm "$work/nxrt_package/$package/$library"
cp -L "$nxrt_library" "$work/nxrt_package/$package/$library"
"$inputs_tool" "$work/inputs"

node "$here/run_models.js" "$prefix" "$work/inputs" --write "$work/ort_outputs.json"
node "$here/run_models.js" "$work/nxrt_package" "$work/inputs" --compare "$work/ort_outputs.json"
