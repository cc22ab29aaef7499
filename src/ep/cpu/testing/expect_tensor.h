// ep/cpu/testing/expect_tensor.h: exact tensor comparison for the CPU EP's kernel tests.
//
// Layer: tests of nxrt_ep_cpu. The kernels run the math library's functions, so a kernel's output
// must equal the reference computed by the same math on the same inputs bit for bit (NaN payloads
// included), whatever split into parallel parts the kernel chose.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ep/cpu/math/testing/test_util.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::testing {

// Expects `actual` to have `expected`'s dtype, shape and elements (bytes for numeric and bool
// types, values for strings). `where` names the case in failure messages.
inline void ExpectSameTensor(const Tensor& expected, const Tensor& actual,
                             const std::string& where) {
  ASSERT_EQ(DataTypeName(actual.dtype()), DataTypeName(expected.dtype())) << where;
  ASSERT_EQ(ShapeToString(actual.shape()), ShapeToString(expected.shape())) << where;
  const int64_t count = expected.element_count();
  if (expected.dtype() == DataType::kString) {
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(actual.data<std::string>()[i], expected.data<std::string>()[i])
          << where << ", element " << i;
    }
    return;
  }
  const size_t size = DataTypeSize(expected.dtype());
  const auto* a = static_cast<const std::byte*>(actual.raw_data());
  const auto* e = static_cast<const std::byte*>(expected.raw_data());
  for (int64_t i = 0; i < count; ++i) {
    if (std::memcmp(a + i * size, e + i * size, size) == 0) continue;
    ADD_FAILURE() << where << ", element " << i << " of " << count << ": expected "
                  << math::testing::GetDouble(expected, i) << ", got "
                  << math::testing::GetDouble(actual, i);
    return;
  }
}

}  // namespace nxrt::cpu::testing
