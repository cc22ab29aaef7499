// ep/cpu/math/tensor/testing/resize_onnx_cases.h: the Resize/Upsample node tests of the ONNX
// backend test data (ONNX 1.12) as one table, for the Resize tests of the math layer and of the
// kernels. The rows are resize_onnx_cases.inc, written by resize_onnx_cases.py.
#pragma once

#include <cstdint>
#include <vector>

#include "ep/cpu/math/tensor/resize.h"

namespace nxrt::cpu::nn::testing {

// One node test: the node's attributes, its input and optional roi/scales/sizes inputs (empty
// when the test omits them), and the expected output.
struct ResizeOnnxCase {
  const char* name;
  ResizeMode mode;
  ResizeCoordinateMode coordinate_mode;
  ResizeNearestMode nearest_mode;
  double cubic_coeff_a;
  int exclude_outside;
  double extrapolation_value;
  Shape input_shape;
  std::vector<float> input;
  std::vector<double> roi;
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  Shape output_shape;
  std::vector<float> output;
};

inline const ResizeOnnxCase kResizeOnnxCases[] = {
#include "ep/cpu/math/tensor/testing/resize_onnx_cases.inc"
};

}  // namespace nxrt::cpu::nn::testing
