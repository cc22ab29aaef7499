#!/usr/bin/env bash
# CTest nxrt_python_pip_install: `pip install --no-build-isolation --no-index .` (offline) from
# the source folder into a scratch venv that sees Debian's packages, reusing the build folder
# given (NXRT_BUILD_DIR); then the installed copy, not the build tree's, runs a real model and
# must give the build tree's module's outputs.
#   pip_install_test.sh SOURCE_DIR BUILD_DIR MODEL.onnx
set -euo pipefail
src=$1 build=$2 model=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$scratch/venv"
(cd "$src" && NXRT_BUILD_DIR="$build" "$scratch/venv/bin/pip" install -q --no-build-isolation --no-index .)
cd "$scratch"
run='
import sys, numpy, nxrt
s = nxrt.InferenceSession(sys.argv[1])
x = numpy.random.default_rng(3).uniform(-1, 3, (2, 76, 32, 1)).astype(numpy.float32)
numpy.save(sys.argv[2], s.run(None, {"input_1": x})[0])
print(nxrt.__file__)
'
installed=$(env -u PYTHONPATH "$scratch/venv/bin/python" -c "$run" "$model" "$scratch/installed.npy")
built=$(PYTHONPATH="$build/python" /usr/bin/python3 -c "$run" "$model" "$scratch/built.npy")
case "$installed" in "$scratch"/venv/*) ;; *) echo "imported $installed, not the installed copy" >&2; exit 1 ;; esac
case "$built" in "$build"/python/*) ;; *) echo "imported $built, not the build tree's" >&2; exit 1 ;; esac
/usr/bin/python3 -c '
import sys, numpy
a, b = numpy.load(sys.argv[1]), numpy.load(sys.argv[2])
assert a.shape == (2, 1, 1, 96) and numpy.array_equal(a, b), (a.shape, b.shape)
' "$scratch/installed.npy" "$scratch/built.npy"
echo "pip install: the installed nxrt ran oww_embedding as the build tree's does"
