#!/bin/sh
# tests/embedding/embedding_test.sh: the programs of docs/embedding.md, built against an
# installed nxrt with find_package(nxrt) and with pkg-config, run on a real model.
#
#   embedding_test.sh SOURCE_DIR BUILD_DIR WORK_DIR MODEL ORT_LIBRARY_DIR
#
# Installs BUILD_DIR into WORK_DIR/prefix, takes the ```cpp, ```c and ```cmake blocks out of
# docs/embedding.md, builds the C++ and the C program both ways, runs all four on MODEL and checks
# that they print the same line; then runs the pkg-config C binary on ONNX Runtime 1.30's library
# (ORT_LIBRARY_DIR first on LD_LIBRARY_PATH) and checks that its sum agrees within 1e-3 (relative; 1e-6 absolute).
set -eu
src=$1 build=$2 work=$3 model=$4 ort_dir=$5
prefix=$work/prefix
rm -rf "$work" && mkdir -p "$work/project"
cmake --install "$build" --prefix "$prefix" >/dev/null

# The first block of each language in the page.
block() {
  awk -v lang="$1" '$0 == "```" lang {on = 1; next} on && $0 == "```" {exit} on' "$src/docs/embedding.md"
}
block cpp > "$work/project/main.cpp"
block c > "$work/project/main.c"
block cmake > "$work/project/CMakeLists.txt"
for f in main.cpp main.c CMakeLists.txt; do
  [ -s "$work/project/$f" ] || { echo "embedding_test: no $f block in docs/embedding.md" >&2; exit 1; }
done

cmake -S "$work/project" -B "$work/cmake_build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake_build" >/dev/null

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
c++ "$work/project/main.cpp" $(pkg-config --cflags --libs nxrt) -o "$work/pc_cpp"
cc "$work/project/main.c" $(pkg-config --cflags --libs libonnxruntime) -o "$work/pc_c"

cmake_cpp=$("$work/cmake_build/embed_cpp" "$model")
cmake_c=$("$work/cmake_build/embed_c" "$model")
pc_cpp=$(LD_LIBRARY_PATH="$prefix/lib" "$work/pc_cpp" "$model")
pc_c=$(LD_LIBRARY_PATH="$prefix/lib" "$work/pc_c" "$model")
ort_c=$(LD_LIBRARY_PATH="$ort_dir" "$work/pc_c" "$model")
echo "find_package C++: $cmake_cpp"
echo "find_package C:   $cmake_c"
echo "pkg-config C++:   $pc_cpp"
echo "pkg-config C:     $pc_c"
echo "C on ORT 1.30:    $ort_c"
for line in "$cmake_c" "$pc_cpp" "$pc_c"; do
  [ "$line" = "$cmake_cpp" ] || { echo "embedding_test: the programs disagree" >&2; exit 1; }
done
sum() { echo "$1" | sed 's/.*sum //'; }
awk -v a="$(sum "$cmake_cpp")" -v b="$(sum "$ort_c")" 'BEGIN {
  d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
  if (d > 1e-3 * m + 1e-6) { print "embedding_test: nxrt sums " a ", ONNX Runtime " b > "/dev/stderr"; exit 1 }
}'
[ "${cmake_cpp%%,*}" = "${ort_c%%,*}" ] || { echo "embedding_test: output names or counts differ from ONNX Runtime's" >&2; exit 1; }
echo "embedding_test: all programs agree, with ONNX Runtime too"
