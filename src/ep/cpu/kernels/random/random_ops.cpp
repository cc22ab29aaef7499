// ep/cpu/kernels/random/random_ops.cpp: glue of RandomUniform[Like], RandomNormal[Like],
// Bernoulli and Multinomial (math/random/random.h).
//
// Layer: nxrt_ep_cpu (kernel glue). ONNX sources: onnx/defs/generator/defs.cc (RandomUniform-1,
// RandomNormal-1, their -Like forms, Bernoulli-15) and onnx/defs/math/defs.cc (Multinomial-7).
// Output dtypes come from the `dtype` attribute (an ONNX TensorProto type number) when present.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/random/random.h"
#include "ep/cpu/math/element_types.h"
#include "ep/cpu/math/random/random.h"

namespace nxrt::cpu::kernels {
namespace {

using math::RandomEngine;

// The float attribute `seed` as an engine seed, or nullopt when absent.
Result<std::optional<uint64_t>> ReadSeed(const NodeInfo& node) {
  if (!node.HasAttribute("seed")) return std::optional<uint64_t>();
  NXRT_ASSIGN_OR_RETURN(float seed, node.GetFloat("seed"));
  return std::optional<uint64_t>(math::SeedFromFloat(seed));
}

// The `dtype` attribute as a DataType, or nullopt when absent. kInvalidModel for a number that
// names no element type.
Result<std::optional<DataType>> ReadDtype(const NodeInfo& node) {
  if (!node.HasAttribute("dtype")) return std::optional<DataType>();
  NXRT_ASSIGN_OR_RETURN(int64_t value, node.GetInt("dtype"));
  const std::optional<DataType> type = DataTypeFromOnnx(static_cast<int32_t>(value));
  if (!type) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'dtype' is ", value,
                      ", which is no ONNX element type");
  }
  return type;
}

// Draws from `engine` into `out` (`count` elements of a float type), one `draw()` per element.
template <typename Draw>
void FillFloats(DataType type, void* out, int64_t count, Draw&& draw) {
  math::VisitType(math::FloatTypesBf16{}, type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* values = static_cast<T*>(out);
    for (int64_t i = 0; i < count; ++i) {
      values[i] = math::Store<T>(static_cast<math::Compute<T>>(draw()));
    }
  });
}

Status CheckFloatOutput(DataType type, std::string_view op) {
  return math::DispatchType<math::FloatTypesBf16>(type, op, [](auto) {});
}

enum class Distribution { kUniform, kNormal };

struct RandomAttrs {
  Distribution distribution = Distribution::kUniform;
  bool like = false;   // the shape (and default dtype) of input 0
  double first = 0;    // low or mean
  double second = 1;   // high or scale
  std::optional<DataType> dtype;
  Shape shape;  // without `like`
};

class RandomKernel final : public Kernel {
 public:
  RandomKernel(RandomAttrs attrs, std::optional<uint64_t> seed)
      : attrs_(std::move(attrs)), engine_(seed) {}

  Status Prepare(PrepareContext& ctx) override {
    type_ = attrs_.dtype.value_or(attrs_.like ? ctx.input_dtype(0) : DataType::kFloat);
    NXRT_RETURN_IF_ERROR(CheckFloatOutput(
        type_, attrs_.distribution == Distribution::kUniform ? "random uniform output"
                                                             : "random normal output"));
    return ctx.SetOutput(0, type_, attrs_.like ? InputShape(ctx, 0) : attrs_.shape);
  }

  Status Compute(ComputeContext& ctx) override {
    Tensor* out = ctx.output(0);
    const double a = attrs_.first, b = attrs_.second;
    if (attrs_.distribution == Distribution::kUniform) {
      FillFloats(type_, out->mutable_raw_data(), out->element_count(),
                 [&] { return a + (b - a) * engine_.Uniform(); });
    } else {
      FillFloats(type_, out->mutable_raw_data(), out->element_count(),
                 [&] { return a + b * engine_.Normal(); });
    }
    return Status::Ok();
  }

 private:
  RandomAttrs attrs_;
  RandomEngine engine_;
  DataType type_ = DataType::kUndefined;
};

Result<std::unique_ptr<Kernel>> MakeRandomKernel(const NodeInfo& node, Distribution distribution,
                                                 bool like) {
  RandomAttrs attrs;
  attrs.distribution = distribution;
  attrs.like = like;
  const bool uniform = distribution == Distribution::kUniform;
  NXRT_ASSIGN_OR_RETURN(float first, node.GetFloat(uniform ? "low" : "mean", 0.0f));
  NXRT_ASSIGN_OR_RETURN(float second, node.GetFloat(uniform ? "high" : "scale", 1.0f));
  attrs.first = first;
  attrs.second = second;
  NXRT_ASSIGN_OR_RETURN(attrs.dtype, ReadDtype(node));
  if (!like) {
    NXRT_ASSIGN_OR_RETURN(attrs.shape, node.GetInts("shape"));
    for (int64_t d : attrs.shape) {
      if (d < 0) {
        return node.Error(StatusCode::kInvalidModel, "attribute 'shape' ",
                          ShapeToString(attrs.shape), " has a negative dim");
      }
    }
  }
  if (attrs.dtype) {
    Status status = CheckFloatOutput(*attrs.dtype, "attribute 'dtype':");
    if (!status.ok()) return node.Error(StatusCode::kUnsupported, status.message());
  }
  NXRT_ASSIGN_OR_RETURN(std::optional<uint64_t> seed, ReadSeed(node));
  return std::unique_ptr<Kernel>(std::make_unique<RandomKernel>(std::move(attrs), seed));
}

class BernoulliKernel final : public Kernel {
 public:
  BernoulliKernel(std::optional<DataType> dtype, std::optional<uint64_t> seed)
      : dtype_(dtype), engine_(seed) {}

  Status Prepare(PrepareContext& ctx) override {
    in_type_ = ctx.input_dtype(0);
    out_type_ = dtype_.value_or(in_type_);
    NXRT_RETURN_IF_ERROR(CheckFloatOutput(in_type_, "Bernoulli input 0"));
    NXRT_RETURN_IF_ERROR(
        math::DispatchType<math::NumericAndBoolTypes>(out_type_, "Bernoulli output", [](auto) {}));
    const Shape shape = InputShape(ctx, 0);
    NXRT_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape));
    ctx.SetWorkspaceBytes(static_cast<size_t>(count) * sizeof(double));  // the probabilities
    return ctx.SetOutput(0, out_type_, shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const int64_t count = x.element_count();
    auto* probabilities = reinterpret_cast<double*>(ctx.workspace().data());
    math::VisitType(math::FloatTypesBf16{}, in_type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < count; ++i) {
        probabilities[i] = static_cast<double>(math::Load(x.data<T>()[i]));
      }
    });
    void* out = ctx.output(0)->mutable_raw_data();
    math::VisitType(math::NumericAndBoolTypes{}, out_type_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* y = static_cast<T*>(out);
      for (int64_t i = 0; i < count; ++i) {
        y[i] = math::ConvertElement<T>(engine_.Uniform() < probabilities[i]);
      }
    });
    return Status::Ok();
  }

 private:
  std::optional<DataType> dtype_;
  RandomEngine engine_;
  DataType in_type_ = DataType::kUndefined;
  DataType out_type_ = DataType::kUndefined;
};

class MultinomialKernel final : public Kernel {
 public:
  MultinomialKernel(DataType dtype, int64_t sample_size, std::optional<uint64_t> seed)
      : out_type_(dtype), sample_size_(sample_size), engine_(seed) {}

  Status Prepare(PrepareContext& ctx) override {
    in_type_ = ctx.input_dtype(0);
    const Shape shape = InputShape(ctx, 0);
    if (shape.size() != 2 || shape[1] < 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 has shape ", ShapeToString(shape),
                        "; expected [batch_size, class_size] with class_size >= 1");
    }
    NXRT_RETURN_IF_ERROR(CheckFloatOutput(in_type_, "Multinomial input 0"));
    classes_ = shape[1];
    ctx.SetWorkspaceBytes(static_cast<size_t>(classes_) * sizeof(double));
    return ctx.SetOutput(0, out_type_, {shape[0], sample_size_});
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const int64_t batch = x.shape()[0];
    auto* cumulative = reinterpret_cast<double*>(ctx.workspace().data());
    void* out = ctx.output(0)->mutable_raw_data();
    for (int64_t b = 0; b < batch; ++b) {
      // Cumulative exp(x - max) of the row: the unnormalised class distribution.
      double max = -std::numeric_limits<double>::infinity();
      math::VisitType(math::FloatTypesBf16{}, in_type_, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* row = x.data<T>() + b * classes_;
        for (int64_t c = 0; c < classes_; ++c) {
          max = std::max(max, static_cast<double>(math::Load(row[c])));
        }
        double total = 0;
        for (int64_t c = 0; c < classes_; ++c) {
          total += std::exp(static_cast<double>(math::Load(row[c])) - max);
          cumulative[c] = total;
        }
      });
      for (int64_t s = 0; s < sample_size_; ++s) {
        const double target = engine_.Uniform() * cumulative[classes_ - 1];
        int64_t c = 0;
        while (c < classes_ - 1 && cumulative[c] <= target) ++c;
        const int64_t i = b * sample_size_ + s;
        if (out_type_ == DataType::kInt32) {
          static_cast<int32_t*>(out)[i] = static_cast<int32_t>(c);
        } else {
          static_cast<int64_t*>(out)[i] = c;
        }
      }
    }
    return Status::Ok();
  }

 private:
  DataType out_type_;
  int64_t sample_size_;
  RandomEngine engine_;
  DataType in_type_ = DataType::kUndefined;
  int64_t classes_ = 0;
};

}  // namespace

ep::KernelFactory RandomUniformFactory(bool like) {
  return [like](const NodeInfo& node) {
    return MakeRandomKernel(node, Distribution::kUniform, like);
  };
}

ep::KernelFactory RandomNormalFactory(bool like) {
  return [like](const NodeInfo& node) {
    return MakeRandomKernel(node, Distribution::kNormal, like);
  };
}

ep::KernelFactory BernoulliFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::optional<DataType> dtype, ReadDtype(node));
    NXRT_ASSIGN_OR_RETURN(std::optional<uint64_t> seed, ReadSeed(node));
    return std::unique_ptr<Kernel>(std::make_unique<BernoulliKernel>(dtype, seed));
  };
}

ep::KernelFactory MultinomialFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(std::optional<DataType> dtype, ReadDtype(node));
    const DataType type = dtype.value_or(DataType::kInt32);
    if (type != DataType::kInt32 && type != DataType::kInt64) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'dtype' is ", DataTypeName(type),
                        "; Multinomial outputs int32 (6) or int64 (7)");
    }
    NXRT_ASSIGN_OR_RETURN(int64_t sample_size, node.GetInt("sample_size", 1));
    if (sample_size < 0) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'sample_size' is ", sample_size,
                        ", expected >= 0");
    }
    NXRT_ASSIGN_OR_RETURN(std::optional<uint64_t> seed, ReadSeed(node));
    return std::unique_ptr<Kernel>(std::make_unique<MultinomialKernel>(type, sample_size, seed));
  };
}

}  // namespace nxrt::cpu::kernels
