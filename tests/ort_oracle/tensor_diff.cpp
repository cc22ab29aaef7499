// ort_oracle/tensor_diff.cpp: see tensor_diff.h.
#include "ort_oracle/tensor_diff.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace nxrt::oracle {
namespace {

double AsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    default: return 0;
  }
}

}  // namespace

std::string TensorDiff(const Tensor& got, const Tensor& want, double rtol, double atol) {
  std::ostringstream os;
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    os << "got " << got.Description() << ", want " << want.Description();
    return os.str();
  }
  const bool floating = want.dtype() == DataType::kFloat || want.dtype() == DataType::kDouble ||
                        want.dtype() == DataType::kFloat16;
  if (!floating) {
    if (want.byte_size() && std::memcmp(got.raw_data(), want.raw_data(), want.byte_size()) != 0) {
      return "integer/bool contents differ";
    }
    return "";
  }
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    const double g = AsDouble(got, i), w = AsDouble(want, i);
    if (std::isnan(g) && std::isnan(w)) continue;
    const double err = std::fabs(g - w);
    if (!(err <= atol + rtol * std::fabs(w))) {
      if (first < 0) first = i;
      ++bad;
    }
    if (std::isfinite(err)) worst = std::max(worst, err);
  }
  if (bad == 0) return "";
  os << bad << " of " << want.element_count() << " values differ; first at " << first << ": "
     << AsDouble(got, first) << " vs " << AsDouble(want, first) << "; max abs error " << worst;
  return os.str();
}

}  // namespace nxrt::oracle
