// ep/cpu/kernels/shape/non_zero.cpp: glue of NonZero, whose output shape depends on the data.
//
// Layer: nxrt_ep_cpu (kernel glue). Prepare declares the int64 output dynamic and resolves the
// typed counting and writing functions; Compute counts the non-zero elements, allocates the
// [rank, count] output through the context and writes the coordinates (row-major order).
#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/shape.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/shape_util.h"

namespace nxrt::cpu::kernels {
namespace {

template <typename T>
bool IsNonZero(const T& value) {
  return math::Load(value) != 0;
}

template <typename T>
int64_t CountNonZero(const void* in, int64_t count) {
  const T* values = static_cast<const T*>(in);
  int64_t found = 0;
  for (int64_t i = 0; i < count; ++i) found += IsNonZero(values[i]) ? 1 : 0;
  return found;
}

// Writes the coordinates of the non-zero elements: out[axis * found + k] is the axis-th
// coordinate of the k-th one. `index` has one entry per dim and is overwritten.
template <typename T>
void WriteNonZero(const void* in, std::span<const int64_t> dims, int64_t found,
                  std::span<int64_t> index, int64_t* out) {
  const T* values = static_cast<const T*>(in);
  const int64_t count = math::Product(dims);
  std::fill(index.begin(), index.end(), 0);
  int64_t k = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (IsNonZero(values[i])) {
      for (size_t axis = 0; axis < dims.size(); ++axis) out[axis * found + k] = index[axis];
      ++k;
    }
    for (size_t axis = dims.size(); axis-- > 0;) {
      if (++index[axis] < dims[axis]) break;
      index[axis] = 0;
    }
  }
}

class NonZeroKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    dims_ = InputShape(ctx, 0);
    index_.assign(dims_.size(), 0);
    NXRT_RETURN_IF_ERROR(math::DispatchType<math::NumericAndBoolTypes>(
        ctx.input_dtype(0), "NonZero", [&](auto tag) {
          using T = typename decltype(tag)::type;
          count_ = &CountNonZero<T>;
          write_ = &WriteNonZero<T>;
        }));
    return ctx.SetOutputDynamic(0, DataType::kInt64);
  }

  Status Compute(ComputeContext& ctx) override {
    const void* in = ctx.input(0)->raw_data();
    const int64_t found = count_(in, ctx.input(0)->element_count());
    NXRT_ASSIGN_OR_RETURN(Tensor* out,
                          ctx.AllocateOutput(0, {static_cast<int64_t>(dims_.size()), found}));
    write_(in, dims_, found, index_, out->mutable_data<int64_t>());
    return Status::Ok();
  }

 private:
  Shape dims_;
  std::vector<int64_t> index_;  // scratch multi-index, sized in Prepare
  int64_t (*count_)(const void* in, int64_t count) = nullptr;
  void (*write_)(const void* in, std::span<const int64_t> dims, int64_t found,
                 std::span<int64_t> index, int64_t* out) = nullptr;
};

}  // namespace

ep::KernelFactory NonZeroFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<NonZeroKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
