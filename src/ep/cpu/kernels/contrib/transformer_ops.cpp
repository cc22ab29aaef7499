// ep/cpu/kernels/contrib/transformer_ops.cpp: glue of the contrib normalisations and activations
// over math/contrib/transformer_ops.h: SkipLayerNormalization, SkipSimplifiedLayerNormalization,
// SimplifiedLayerNormalization, FastGelu, BiasGelu, Gelu, QuickGelu, BiasAdd.
//
// Layer: nxrt_ep_cpu (kernel glue). Rows (or element ranges) are spread over the thread pool.
#include <memory>
#include <optional>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/contrib/optional_inputs.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/transformer_ops.h"

namespace nxrt::cpu::kernels {
namespace {

float* OptionalOutput(ComputeContext& ctx, int i) {
  Tensor* t = i < ctx.output_count() ? ctx.output(i) : nullptr;
  return t != nullptr ? t->mutable_data<float>() : nullptr;
}

// SkipLayerNormalization (input, skip, gamma, beta?, bias?) and SkipSimplifiedLayerNormalization
// (input, skip, gamma, bias?) -> output, mean?, inv_std_var?, input_skip_bias_sum?.
class SkipNormKernel final : public Kernel {
 public:
  SkipNormKernel(bool simplified, float epsilon) : simplified_(simplified), epsilon_(epsilon) {}

  Status Prepare(PrepareContext& ctx) override {
    const int bias_input = simplified_ ? 3 : 4;
    NXRT_ASSIGN_OR_RETURN(
        plan_, contrib::PrepareSkipNorm(simplified_, ctx.input_shape(0), ctx.input_shape(1),
                                        ctx.input_shape(2),
                                        simplified_ ? std::nullopt : OptionalShape(ctx, 3),
                                        OptionalShape(ctx, bias_input), epsilon_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, DataType::kFloat, plan_.output_shape));
    for (int i = 1; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(
          ctx.SetOutput(i, DataType::kFloat, i == 3 ? plan_.output_shape : plan_.stat_shape));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    contrib::RowNormBuffers b;
    b.input = ctx.input(0)->data<float>();
    b.skip = ctx.input(1)->data<float>();
    b.gamma = ctx.input(2)->data<float>();
    b.beta = simplified_ ? nullptr : OptionalFloats(ctx, 3);
    b.bias = OptionalFloats(ctx, simplified_ ? 3 : 4);
    b.y = ctx.output(0)->mutable_data<float>();
    b.mean = simplified_ ? nullptr : OptionalOutput(ctx, 1);
    b.inv_std_var = OptionalOutput(ctx, 2);
    b.sum = OptionalOutput(ctx, 3);
    const double row_ns = static_cast<double>(plan_.hidden) * kArithmeticNsPerElement;
    ctx.ParallelFor(plan_.rows, MinItemsPerPart(row_ns), [&](int64_t begin, int64_t end) {
      contrib::RowNorm(plan_, b, begin, end);
    });
    if (simplified_ && ctx.output_count() > 1 && ctx.output(1) != nullptr) {
      // SkipSimplifiedLayerNormalization has no mean: ORT leaves the output 0.
      std::fill_n(ctx.output(1)->mutable_data<float>(), ctx.output(1)->element_count(), 0.0f);
    }
    return Status::Ok();
  }

 private:
  bool simplified_;
  float epsilon_;
  contrib::RowNormPlan plan_;
};

// SimplifiedLayerNormalization (X, scale) -> Y, inv_std_var?.
class SimplifiedLayerNormKernel final : public Kernel {
 public:
  SimplifiedLayerNormKernel(int64_t axis, float epsilon) : axis_(axis), epsilon_(epsilon) {}

  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_dtype(0) != DataType::kFloat || ctx.input_dtype(1) != DataType::kFloat) {
      return MakeStatus(StatusCode::kUnsupported, "SimplifiedLayerNormalization: X is ",
                        DataTypeName(ctx.input_dtype(0)), " and scale ",
                        DataTypeName(ctx.input_dtype(1)), "; the CPU EP computes float");
    }
    NXRT_ASSIGN_OR_RETURN(plan_, contrib::PrepareSimplifiedLayerNorm(
                                     ctx.input_shape(0), ctx.input_shape(1), axis_, epsilon_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, DataType::kFloat, plan_.output_shape));
    if (ctx.output_count() > 1) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, DataType::kFloat, plan_.stat_shape));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    contrib::RowNormBuffers b;
    b.input = ctx.input(0)->data<float>();
    b.gamma = ctx.input(1)->data<float>();
    b.y = ctx.output(0)->mutable_data<float>();
    b.inv_std_var = OptionalOutput(ctx, 1);
    const double row_ns = static_cast<double>(plan_.hidden) * kArithmeticNsPerElement;
    ctx.ParallelFor(plan_.rows, MinItemsPerPart(row_ns), [&](int64_t begin, int64_t end) {
      contrib::RowNorm(plan_, b, begin, end);
    });
    return Status::Ok();
  }

 private:
  int64_t axis_;
  float epsilon_;
  contrib::RowNormPlan plan_;
};

// FastGelu (X, bias?), BiasGelu (A, B), Gelu (X), QuickGelu (X): Y of X's shape.
class GeluKernel final : public Kernel {
 public:
  GeluKernel(contrib::GeluKind kind, float alpha) : kind_(kind), alpha_(alpha) {}

  Status Prepare(PrepareContext& ctx) override {
    const Shape x = InputShape(ctx, 0);
    if (std::optional<Shape> bias = OptionalShape(ctx, 1)) {
      if (x.empty() || bias->size() != 1 || (*bias)[0] != x.back()) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 (bias) has shape ",
                          ShapeToString(*bias), " but input 0 has shape ", ShapeToString(x),
                          "; the bias must be 1-D of the last dim");
      }
    }
    return ctx.SetOutput(0, DataType::kFloat, x);
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    const float* bias = OptionalFloats(ctx, 1);
    const int64_t bias_size = bias != nullptr ? ctx.input(1)->element_count() : 1;
    float* y = ctx.output(0)->mutable_data<float>();
    ParallelRanges(ctx, x.element_count(), [&](int64_t begin, int64_t end) {
      contrib::BiasActivation(kind_, alpha_, x.data<float>(), bias, bias_size, y, begin, end);
    });
    return Status::Ok();
  }

 private:
  contrib::GeluKind kind_;
  float alpha_;
};

// BiasAdd (X [N, S, C], bias [C], skip [N, S, C]) -> Y.
class BiasAddKernel final : public Kernel {
 public:
  Status Prepare(PrepareContext& ctx) override {
    const Shape x = InputShape(ctx, 0), bias = InputShape(ctx, 1), skip = InputShape(ctx, 2);
    if (x.size() != 3 || skip != x || bias.size() != 1 || bias[0] != x[2]) {
      return MakeStatus(StatusCode::kInvalidArgument, "BiasAdd: X ", ShapeToString(x),
                        ", bias ", ShapeToString(bias), " and skip ", ShapeToString(skip),
                        " do not fit; expected X and skip [N, S, C] and bias [C]");
    }
    return ctx.SetOutput(0, DataType::kFloat, x);
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    float* y = ctx.output(0)->mutable_data<float>();
    const int64_t channels = ctx.input(1)->element_count();
    ParallelRanges(ctx, x.element_count(), [&](int64_t begin, int64_t end) {
      contrib::BiasAdd(x.data<float>(), ctx.input(1)->data<float>(), channels,
                       ctx.input(2)->data<float>(), y, begin, end);
    });
    return Status::Ok();
  }
};

// EmbedLayerNormalization (input_ids, segment_ids?, word_embedding, position_embedding,
// segment_embedding?, gamma, beta, mask?, position_ids?) -> output, mask_index?, embedding_sum?.
class EmbedLayerNormKernel final : public Kernel {
 public:
  explicit EmbedLayerNormKernel(float epsilon) : epsilon_(epsilon) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(
        plan_, contrib::PrepareEmbedLayerNorm(
                   ctx.input_shape(0), OptionalShape(ctx, 1), ctx.input_shape(2),
                   ctx.input_shape(3), OptionalShape(ctx, 4), ctx.input_shape(5),
                   ctx.input_shape(6), OptionalShape(ctx, 7), OptionalShape(ctx, 8), epsilon_));
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(
        0, DataType::kFloat, {plan_.batch, plan_.sequence, plan_.hidden}));
    if (ctx.output_count() > 1) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(1, DataType::kInt32, {plan_.batch}));
    }
    if (ctx.output_count() > 2) {
      NXRT_RETURN_IF_ERROR(
          ctx.SetOutput(2, DataType::kFloat, {plan_.batch, plan_.sequence, plan_.hidden}));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    const auto ints = [&](int i) -> const int32_t* {
      const Tensor* t = i < ctx.input_count() ? ctx.input(i) : nullptr;
      return t != nullptr ? t->data<int32_t>() : nullptr;
    };
    contrib::EmbedLayerNormBuffers b;
    b.input_ids = ints(0);
    b.segment_ids = ints(1);
    b.word = ctx.input(2)->data<float>();
    b.position = ctx.input(3)->data<float>();
    b.segment = OptionalFloats(ctx, 4);
    b.gamma = ctx.input(5)->data<float>();
    b.beta = ctx.input(6)->data<float>();
    b.mask = ints(7);
    b.position_ids = ints(8);
    b.output = ctx.output(0)->mutable_data<float>();
    Tensor* mask_index = ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    b.mask_index = mask_index != nullptr ? mask_index->mutable_data<int32_t>() : nullptr;
    b.embedding_sum = OptionalOutput(ctx, 2);
    if (b.mask_index != nullptr) contrib::EmbedMaskIndex(plan_, b);
    return ParallelRangesTry(ctx, plan_.batch * plan_.sequence, [&](int64_t begin, int64_t end) {
      return contrib::EmbedLayerNorm(plan_, b, begin, end);
    });
  }

 private:
  float epsilon_;
  contrib::EmbedLayerNormPlan plan_;
};

}  // namespace

ep::KernelFactory EmbedLayerNormalizationFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-12f));
    return std::unique_ptr<Kernel>(std::make_unique<EmbedLayerNormKernel>(epsilon));
  };
}

ep::KernelFactory SkipLayerNormalizationFactory(bool simplified) {
  return [simplified](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-12f));
    return std::unique_ptr<Kernel>(std::make_unique<SkipNormKernel>(simplified, epsilon));
  };
}

ep::KernelFactory SimplifiedLayerNormalizationFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t axis, node.GetInt("axis", -1));
    NXRT_ASSIGN_OR_RETURN(float epsilon, node.GetFloat("epsilon", 1e-5f));
    NXRT_ASSIGN_OR_RETURN(int64_t stash_type, node.GetInt("stash_type", 1));
    if (stash_type != 1) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'stash_type' is ", stash_type,
                        "; the CPU EP computes the statistics in float (1)");
    }
    return std::unique_ptr<Kernel>(std::make_unique<SimplifiedLayerNormKernel>(axis, epsilon));
  };
}

ep::KernelFactory GeluFactory(contrib::GeluKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(float alpha, node.GetFloat("alpha", 1.702f));
    return std::unique_ptr<Kernel>(std::make_unique<GeluKernel>(kind, alpha));
  };
}

ep::KernelFactory BiasAddFactory() {
  return [](const NodeInfo&) -> Result<std::unique_ptr<Kernel>> {
    return std::unique_ptr<Kernel>(std::make_unique<BiasAddKernel>());
  };
}

}  // namespace nxrt::cpu::kernels
