// ep/cpu/kernels/shape/generators.cpp: glue of Range and EyeLike, which generate their output
// from scalars and attributes.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare resolves the typed fill function once (through the
// math library's one dtype dispatch helper) and the output shape; Compute only fills.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/shape.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

using RangeTypes = math::TypeList<float, double, int16_t, int32_t, int64_t>;

// ceil((limit - start) / delta) clamped at 0 (Range-11); nullopt when it is NaN or does not fit
// int64. Integers are computed exactly in 128 bits: limit - start of two int64 overflows 64.
template <typename T>
std::optional<int64_t> RangeCount(T start, T limit, T delta) {
  if constexpr (std::is_floating_point_v<T>) {
    const double count = std::ceil((static_cast<double>(limit) - start) / delta);
    if (std::isnan(count) || count >= 0x1p63) return std::nullopt;
    return count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    const __int128 diff = static_cast<__int128>(limit) - start;
    __int128 count = 0;
    if (delta > 0 && diff > 0) count = (diff + delta - 1) / delta;
    if (delta < 0 && diff < 0) count = (diff + delta + 1) / delta;
    if (count > std::numeric_limits<int64_t>::max()) return std::nullopt;
    return static_cast<int64_t>(count);
  }
}

// out[i] = start + i * delta. Integers are summed modulo 2^64: every value lies between start and
// limit, but i * delta alone may not fit T (start INT64_MIN, delta 2^62, i = 3).
template <typename T>
void RangeFill(const void* start, const void* delta, void* out, int64_t count) {
  const T first = *static_cast<const T*>(start);
  const T step = *static_cast<const T*>(delta);
  T* values = static_cast<T*>(out);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_integral_v<T>) {
      values[i] = static_cast<T>(static_cast<uint64_t>(first) +
                                 static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
    } else {
      values[i] = static_cast<T>(first + i * step);
    }
  }
}

class RangeKernel final : public Kernel {
 public:
  std::vector<int> ValueInputs() const override { return {0, 1, 2}; }

  Status Prepare(PrepareContext& ctx) override {
    const Tensor* scalars[3];
    const char* names[3] = {"input 0 'start'", "input 1 'limit'", "input 2 'delta'"};
    for (int i = 0; i < 3; ++i) {
      NXRT_ASSIGN_OR_RETURN(scalars[i], ctx.input_value(i));
      if (scalars[i]->element_count() != 1 || scalars[i]->dtype() != scalars[0]->dtype()) {
        return MakeStatus(StatusCode::kInvalidArgument, names[i], " is ",
                          scalars[i]->Description(), "; start, limit and delta are scalars of ",
                          "one type (start is ", DataTypeName(scalars[0]->dtype()), ")");
      }
    }
    const DataType type = scalars[0]->dtype();
    bool zero_delta = false;
    std::optional<int64_t> count;
    std::string values;  // "start S, limit L, delta D", for an error
    NXRT_RETURN_IF_ERROR(math::DispatchType<RangeTypes>(type, "Range", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T start = *scalars[0]->data<T>(), limit = *scalars[1]->data<T>();
      const T delta = *scalars[2]->data<T>();
      zero_delta = delta == 0;
      if (!zero_delta) count = RangeCount<T>(start, limit, delta);
      values = "start " + std::to_string(start) + ", limit " + std::to_string(limit) +
               ", delta " + std::to_string(delta);
      fill_ = &RangeFill<T>;
    }));
    if (zero_delta) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 2 'delta' is 0; Range needs a ",
                        "non-zero step");
    }
    if (!count) {
      return MakeStatus(StatusCode::kInvalidArgument, values, " give an element count that is ",
                        "NaN or 2^63 or more; give finite bounds and a delta that makes fewer ",
                        "elements");
    }
    count_ = *count;
    return ctx.SetOutput(0, type, {count_});
  }

  Status Compute(ComputeContext& ctx) override {
    fill_(ctx.input(0)->raw_data(), ctx.input(2)->raw_data(), ctx.output(0)->mutable_raw_data(),
          count_);
    return Status::Ok();
  }

 private:
  int64_t count_ = 0;
  void (*fill_)(const void* start, const void* delta, void* out, int64_t count) = nullptr;
};

class EyeLikeKernel final : public Kernel {
 public:
  EyeLikeKernel(std::optional<DataType> dtype, int64_t k) : dtype_(dtype), k_(k) {}

  Status Prepare(PrepareContext& ctx) override {
    shape_ = InputShape(ctx, 0);
    if (shape_.size() != 2) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 has shape ", ShapeToString(shape_),
                        ", expected rank 2");
    }
    type_ = dtype_.value_or(ctx.input_dtype(0));
    NXRT_RETURN_IF_ERROR(
        math::DispatchType<math::NumericAndBoolTypes>(type_, "EyeLike", [&](auto tag) {
          using T = typename decltype(tag)::type;
          const T one = math::ConvertElement<T>(true);
          std::memcpy(one_, &one, sizeof(T));
        }));
    return ctx.SetOutput(0, type_, shape_);
  }

  Status Compute(ComputeContext& ctx) override {
    Tensor* out = ctx.output(0);
    std::memset(out->mutable_raw_data(), 0, out->byte_size());
    const size_t size = DataTypeSize(type_);
    for (int64_t row = 0; row < shape_[0]; ++row) {
      const int64_t col = row + k_;
      if (col < 0 || col >= shape_[1]) continue;
      std::memcpy(Advance(out->mutable_raw_data(), row * shape_[1] + col, type_), one_, size);
    }
    return Status::Ok();
  }

 private:
  std::optional<DataType> dtype_;
  int64_t k_;
  Shape shape_;
  DataType type_ = DataType::kUndefined;
  alignas(16) std::byte one_[16] = {};
};

}  // namespace

ep::KernelFactory RangeFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<RangeKernel>());
  };
}

ep::KernelFactory EyeLikeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t k, node.GetInt("k", 0));
    std::optional<DataType> dtype;
    if (node.HasAttribute("dtype")) {
      NXRT_ASSIGN_OR_RETURN(int64_t number, node.GetInt("dtype"));
      dtype = DataTypeFromOnnx(static_cast<int32_t>(number));
      if (!dtype) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'dtype' is ", number,
                          ", which is no ONNX element type");
      }
    }
    return std::unique_ptr<Kernel>(std::make_unique<EyeLikeKernel>(dtype, k));
  };
}

}  // namespace nxrt::cpu::kernels
