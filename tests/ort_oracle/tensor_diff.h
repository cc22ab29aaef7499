// ort_oracle/tensor_diff.h: comparing a tensor nxrt computed with the reference one.
//
// Layer: test support (nxrt_ort_oracle).
#pragma once

#include <string>

#include "nxrt/tensor.h"

namespace nxrt::oracle {

// "" when `got` equals `want`: same dtype and shape; floats (float32/64/16) within
// |got - want| <= atol + rtol * |want| (NaN matches NaN), other types byte for byte. Otherwise a
// description of the difference: the shapes, or the count of differing values, the first one
// and the largest absolute error.
std::string TensorDiff(const Tensor& got, const Tensor& want, double rtol, double atol);

}  // namespace nxrt::oracle
