// ep/cpu/kernels/contrib/attention.cpp: glue of com.microsoft RotaryEmbedding and
// GroupQueryAttention over math/contrib/attention.h.
//
// Layer: nxrt_ep_cpu (kernel glue). GroupQueryAttention reads total_sequence_length (input 6) at
// prepare time (a value input: it sizes present_key / present_value), fills the caches on the
// calling thread and spreads the (batch, head) pairs over the thread pool.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "ep/cpu/kernels/contrib/contrib.h"
#include "ep/cpu/kernels/contrib/optional_inputs.h"
#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/attention.h"

namespace nxrt::cpu::kernels {
namespace {

class RotaryEmbeddingKernel final : public Kernel {
 public:
  explicit RotaryEmbeddingKernel(contrib::RotaryEmbeddingAttributes attributes)
      : attributes_(attributes) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(plan_, contrib::PrepareRotaryEmbedding(
                                     attributes_, ctx.input_shape(0), ctx.input_shape(1),
                                     ctx.input_shape(2), ctx.input_shape(3)));
    return ctx.SetOutput(0, DataType::kFloat, plan_.output_shape);
  }

  Status Compute(ComputeContext& ctx) override {
    const int64_t rows = plan_.batch * plan_.sequence;
    return ParallelRangesTry(ctx, rows, [&](int64_t begin, int64_t end) {
      return contrib::RotaryEmbedding(plan_, ctx.input(0)->data<float>(),
                                      ctx.input(1)->data<int64_t>(), ctx.input(2)->data<float>(),
                                      ctx.input(3)->data<float>(),
                                      ctx.output(0)->mutable_data<float>(), begin, end);
    });
  }

 private:
  contrib::RotaryEmbeddingAttributes attributes_;
  contrib::RotaryEmbeddingPlan plan_;
};

class GroupQueryAttentionKernel final : public Kernel {
 public:
  explicit GroupQueryAttentionKernel(contrib::GqaAttributes attributes)
      : attributes_(attributes) {}

  std::vector<int> ValueInputs() const override { return {6}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(const Tensor* total, ctx.input_value(6));
    if (total->element_count() != 1 || total->dtype() != DataType::kInt32) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 6 'total_sequence_length' is ",
                        total->Description(), "; expected one int32");
    }
    total_ = total->data<int32_t>()[0];
    NXRT_ASSIGN_OR_RETURN(
        plan_, contrib::PrepareGroupQueryAttention(
                   attributes_, ctx.input_shape(0), OptionalShape(ctx, 1), OptionalShape(ctx, 2),
                   OptionalShape(ctx, 3), OptionalShape(ctx, 4), ctx.input_shape(5), total_,
                   OptionalShape(ctx, 7), OptionalShape(ctx, 8)));
    for (int i = 9; i < ctx.input_count(); ++i) {
      if (ctx.has_input(i)) {
        return MakeStatus(StatusCode::kUnsupported, "GroupQueryAttention: input ", i,
                          " (position_ids, attention_bias, head_sink, k/v scales, q/k norm "
                          "weights) is not supported by the CPU EP; leave it empty");
      }
    }
    if (ctx.output_count() > 3) {
      return MakeStatus(StatusCode::kUnsupported,
                        "GroupQueryAttention: output 3 'output_qk' is not supported");
    }
    ctx.SetWorkspaceBytes(plan_.workspace_bytes);
    NXRT_RETURN_IF_ERROR(ctx.SetOutput(0, DataType::kFloat, plan_.output_shape));
    for (int i = 1; i < ctx.output_count(); ++i) {
      NXRT_RETURN_IF_ERROR(ctx.SetOutput(i, DataType::kFloat, plan_.present_shape));
    }
    return Status::Ok();
  }

  Status Compute(ComputeContext& ctx) override {
    contrib::GqaBuffers b;
    b.query = ctx.input(0)->data<float>();
    b.key = OptionalFloats(ctx, 1);
    b.value = OptionalFloats(ctx, 2);
    b.past_key = OptionalFloats(ctx, 3);
    b.past_value = OptionalFloats(ctx, 4);
    b.seqlens_k = ctx.input(5)->data<int32_t>();
    b.total_sequence_length = total_;
    b.cos = OptionalFloats(ctx, 7);
    b.sin = OptionalFloats(ctx, 8);
    b.output = ctx.output(0)->mutable_data<float>();
    // The kernel attends over present_key / present_value, so both must be bound.
    Tensor* present_key = ctx.output_count() > 1 ? ctx.output(1) : nullptr;
    Tensor* present_value = ctx.output_count() > 2 ? ctx.output(2) : nullptr;
    if (present_key == nullptr || present_value == nullptr) {
      return MakeStatus(StatusCode::kUnsupported,
                        "GroupQueryAttention: the CPU EP needs outputs present_key and "
                        "present_value; give them names");
    }
    b.present_key = present_key->mutable_data<float>();
    b.present_value = present_value->mutable_data<float>();
    b.workspace = reinterpret_cast<float*>(ctx.workspace().data());
    NXRT_RETURN_IF_ERROR(contrib::GqaFillCache(plan_, b));
    // Per (batch, head): two products of S x keys x H multiply-adds, keys up to seqlens_k + 1.
    const int32_t* seqlens_end = b.seqlens_k + plan_.batch;
    const int64_t keys = plan_.batch > 0 ? *std::max_element(b.seqlens_k, seqlens_end) + 1 : 0;
    const int64_t head_work = 2 * plan_.sequence * keys * plan_.head_size;
    return ParallelForTry(ctx, plan_.batch * attributes_.num_heads,
                          MinItemsPerPart(static_cast<double>(head_work) * kMacNs),
                          [&](int64_t begin, int64_t end) {
                            return contrib::GqaAttend(plan_, b, begin, end);
                          });
  }

 private:
  contrib::GqaAttributes attributes_;
  contrib::GqaPlan plan_;
  int64_t total_ = 0;
};

// The attention-mask and attention_bias inputs of MultiHeadAttention (`mask`, `bias`) and
// Attention, resolved into `plan`.
Status ResolveMasks(const PrepareContext& ctx, int mask, int bias, contrib::MhaPlan& plan) {
  plan.mask = contrib::MhaPlan::Mask::kNone;
  if (std::optional<Shape> m = OptionalShape(ctx, mask)) {
    if (*m == Shape{plan.batch, plan.kv_sequence}) {
      plan.mask = contrib::MhaPlan::Mask::kKeyPadding2D;
    } else if (*m == Shape{plan.batch}) {
      plan.mask = contrib::MhaPlan::Mask::kLengths1D;
    } else {
      return MakeStatus(StatusCode::kUnsupported, "input ", mask, " (the key mask) has shape ",
                        ShapeToString(*m), "; the CPU EP takes [", plan.batch, ",",
                        plan.kv_sequence, "] (1 keeps a key, 0 masks it) or [", plan.batch,
                        "] (key lengths)");
    }
  }
  plan.attention_bias = false;
  if (std::optional<Shape> a = OptionalShape(ctx, bias)) {
    const bool fits = a->size() == 4 && ((*a)[0] == plan.batch || (*a)[0] == 1) &&
                      ((*a)[1] == plan.heads || (*a)[1] == 1) && (*a)[2] == plan.sequence &&
                      (*a)[3] == plan.kv_sequence;
    if (!fits) {
      return MakeStatus(StatusCode::kInvalidArgument, "input ", bias, " (attention_bias) has shape ",
                        ShapeToString(*a), "; expected [", plan.batch, " or 1, ", plan.heads,
                        " or 1, ", plan.sequence, ", ", plan.kv_sequence, "]");
    }
    plan.attention_bias = true;
    plan.bias_batch = (*a)[0] == plan.batch && plan.batch != 1;
    plan.bias_heads = (*a)[1] == plan.heads && plan.heads != 1;
  }
  return Status::Ok();
}

Status RejectInputsFrom(const PrepareContext& ctx, int first, std::string_view op) {
  for (int i = first; i < ctx.input_count(); ++i) {
    if (ctx.has_input(i)) {
      return MakeStatus(StatusCode::kUnsupported, op, ": input ", i,
                        " (past state or past_sequence_length) is not supported by the CPU EP; "
                        "leave it empty");
    }
  }
  return Status::Ok();
}

// MultiHeadAttention (query, key, value, bias?, key_padding_mask?, attention_bias?) with 3-D
// query, key and value.
class MultiHeadAttentionKernel final : public Kernel {
 public:
  MultiHeadAttentionKernel(int64_t heads, float scale, float mask_filter_value,
                           bool unidirectional)
      : heads_(heads), scale_(scale), mask_filter_value_(mask_filter_value),
        unidirectional_(unidirectional) {}

  Status Prepare(PrepareContext& ctx) override {
    NXRT_RETURN_IF_ERROR(RejectInputsFrom(ctx, 6, "MultiHeadAttention"));
    const Shape q = InputShape(ctx, 0);
    const std::optional<Shape> k = OptionalShape(ctx, 1), v = OptionalShape(ctx, 2);
    if (q.size() != 3 || !k || !v || k->size() != 3 || v->size() != 3 || (*k)[0] != q[0] ||
        (*v)[0] != q[0] || (*k)[1] != (*v)[1] || (*k)[2] != q[2] || q[2] % heads_ != 0 ||
        (*v)[2] % heads_ != 0) {
      return MakeStatus(StatusCode::kUnsupported, "MultiHeadAttention: query ",
                        ShapeToString(q), ", key ", k ? ShapeToString(*k) : "(absent)",
                        " and value ", v ? ShapeToString(*v) : "(absent)",
                        "; the CPU EP takes 3-D [B, S, D], [B, L, D], [B, L, Dv] with D and Dv "
                        "multiples of num_heads ", heads_);
    }
    plan_.batch = q[0];
    plan_.sequence = q[1];
    plan_.kv_sequence = (*k)[1];
    plan_.heads = heads_;
    plan_.head_size = q[2] / heads_;
    plan_.v_head_size = (*v)[2] / heads_;
    plan_.scale = scale_ != 0 ? scale_ : 1.0f / std::sqrt(static_cast<float>(plan_.head_size));
    plan_.mask_filter_value = mask_filter_value_;
    plan_.unidirectional = unidirectional_;
    NXRT_RETURN_IF_ERROR(ResolveMasks(ctx, 4, 5, plan_));
    bias_ = false;
    if (std::optional<Shape> bias = OptionalShape(ctx, 3)) {
      if (*bias != Shape{2 * q[2] + (*v)[2]}) {
        return MakeStatus(StatusCode::kInvalidArgument, "MultiHeadAttention: bias has shape ",
                          ShapeToString(*bias), ", expected [", 2 * q[2] + (*v)[2], "]");
      }
      bias_ = true;
    }
    const int64_t q_count = plan_.batch * plan_.sequence * q[2];
    const int64_t k_count = plan_.batch * plan_.kv_sequence * q[2];
    const int64_t v_count = plan_.batch * plan_.kv_sequence * (*v)[2];
    const int64_t scratch = (bias_ ? q_count + k_count + v_count : 0) +
                            plan_.batch * heads_ * plan_.sequence * plan_.kv_sequence;
    ctx.SetWorkspaceBytes(static_cast<size_t>(scratch) * sizeof(float));
    return ctx.SetOutput(0, DataType::kFloat,
                         {plan_.batch, plan_.sequence, heads_ * plan_.v_head_size});
  }

  Status Compute(ComputeContext& ctx) override {
    auto* scratch = reinterpret_cast<float*>(ctx.workspace().data());
    contrib::MhaBuffers b;
    const int64_t d = plan_.heads * plan_.head_size, dv = plan_.heads * plan_.v_head_size;
    b.q = ctx.input(0)->data<float>();
    b.k = ctx.input(1)->data<float>();
    b.v = ctx.input(2)->data<float>();
    b.q_row = d;
    b.k_row = d;
    b.v_row = dv;
    if (bias_) {
      // The projections' bias, added into copies of Q, K and V.
      const float* bias = ctx.input(3)->data<float>();
      const auto add = [&](const float* x, int64_t rows, int64_t width, const float* bias_part) {
        float* out = scratch;
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t i = 0; i < width; ++i) out[r * width + i] = x[r * width + i] + bias_part[i];
        }
        scratch += rows * width;
        return out;
      };
      b.q = add(b.q, plan_.batch * plan_.sequence, d, bias);
      b.k = add(b.k, plan_.batch * plan_.kv_sequence, d, bias + d);
      b.v = add(b.v, plan_.batch * plan_.kv_sequence, dv, bias + 2 * d);
    }
    const Tensor* mask = ctx.input_count() > 4 ? ctx.input(4) : nullptr;
    b.mask = mask != nullptr ? mask->data<int32_t>() : nullptr;
    b.attention_bias = OptionalFloats(ctx, 5);
    b.output = ctx.output(0)->mutable_data<float>();
    b.scores = scratch;
    return ParallelForTry(ctx, plan_.batch * plan_.heads, 1, [&](int64_t begin, int64_t end) {
      return contrib::MhaAttend(plan_, b, begin, end);
    });
  }

 private:
  int64_t heads_;
  float scale_, mask_filter_value_;
  bool unidirectional_;
  bool bias_ = false;
  contrib::MhaPlan plan_;
};

// Attention (input, weights, bias?, mask_index?, past?, attention_bias?, past_sequence_length?):
// the Q|K|V projection into the workspace, then MhaAttend on it.
class AttentionKernel final : public Kernel {
 public:
  AttentionKernel(int64_t heads, float scale, float mask_filter_value, bool unidirectional)
      : heads_(heads), scale_(scale), mask_filter_value_(mask_filter_value),
        unidirectional_(unidirectional) {}

  Status Prepare(PrepareContext& ctx) override {
    if (ctx.input_count() > 4 && ctx.has_input(4)) {
      return MakeStatus(StatusCode::kUnsupported,
                        "Attention: input 4 'past' is not supported by the CPU EP");
    }
    NXRT_RETURN_IF_ERROR(RejectInputsFrom(ctx, 6, "Attention"));
    const Shape x = InputShape(ctx, 0), w = InputShape(ctx, 1);
    if (x.size() != 3 || w.size() != 2 || w[0] != x[2] || w[1] % 3 != 0 ||
        (w[1] / 3) % heads_ != 0) {
      return MakeStatus(StatusCode::kUnsupported, "Attention: input ", ShapeToString(x),
                        " and weights ", ShapeToString(w), "; the CPU EP takes [B, S, Din] and "
                        "[Din, 3 D] with D a multiple of num_heads ", heads_,
                        " (equal Q, K and V sizes)");
    }
    hidden_ = w[1] / 3;
    if (std::optional<Shape> bias = OptionalShape(ctx, 2); bias && *bias != Shape{3 * hidden_}) {
      return MakeStatus(StatusCode::kInvalidArgument, "Attention: bias has shape ",
                        ShapeToString(*bias), ", expected [", 3 * hidden_, "]");
    }
    plan_.batch = x[0];
    plan_.sequence = x[1];
    plan_.kv_sequence = x[1];
    plan_.heads = heads_;
    plan_.head_size = hidden_ / heads_;
    plan_.v_head_size = plan_.head_size;
    plan_.scale = scale_ != 0 ? scale_ : 1.0f / std::sqrt(static_cast<float>(plan_.head_size));
    plan_.mask_filter_value = mask_filter_value_;
    plan_.unidirectional = unidirectional_;
    NXRT_RETURN_IF_ERROR(ResolveMasks(ctx, 3, 5, plan_));
    in_features_ = x[2];
    const int64_t qkv = plan_.batch * plan_.sequence * 3 * hidden_;
    ctx.SetWorkspaceBytes(
        static_cast<size_t>(qkv + plan_.batch * heads_ * plan_.sequence * plan_.sequence) *
        sizeof(float));
    return ctx.SetOutput(0, DataType::kFloat, {plan_.batch, plan_.sequence, hidden_});
  }

  Status Compute(ComputeContext& ctx) override {
    auto* qkv = reinterpret_cast<float*>(ctx.workspace().data());
    const int64_t rows = plan_.batch * plan_.sequence;
    NXRT_RETURN_IF_ERROR(contrib::DenseRows(ctx.input(0)->data<float>(), rows, in_features_,
                                            ctx.input(1)->data<float>(), 3 * hidden_,
                                            OptionalFloats(ctx, 2), qkv, ctx.thread_count()));
    contrib::MhaBuffers b;
    b.q = qkv;
    b.k = qkv + hidden_;
    b.v = qkv + 2 * hidden_;
    b.q_row = b.k_row = b.v_row = 3 * hidden_;
    const Tensor* mask = ctx.input_count() > 3 ? ctx.input(3) : nullptr;
    b.mask = mask != nullptr ? mask->data<int32_t>() : nullptr;
    b.attention_bias = OptionalFloats(ctx, 5);
    b.output = ctx.output(0)->mutable_data<float>();
    b.scores = qkv + rows * 3 * hidden_;
    return ParallelForTry(ctx, plan_.batch * plan_.heads, 1, [&](int64_t begin, int64_t end) {
      return contrib::MhaAttend(plan_, b, begin, end);
    });
  }

 private:
  int64_t heads_;
  float scale_, mask_filter_value_;
  bool unidirectional_;
  int64_t hidden_ = 0, in_features_ = 0;
  contrib::MhaPlan plan_;
};

// num_heads, scale, mask_filter_value, unidirectional of MultiHeadAttention and Attention.
struct MhaAttributes {
  int64_t heads = 0;
  float scale = 0, mask_filter_value = -10000.0f;
  bool unidirectional = false;
};

Result<MhaAttributes> ReadMhaAttributes(const NodeInfo& node) {
  MhaAttributes a;
  NXRT_ASSIGN_OR_RETURN(a.heads, node.GetInt("num_heads"));
  if (a.heads < 1) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'num_heads' is ", a.heads,
                      "; expected at least 1");
  }
  NXRT_ASSIGN_OR_RETURN(a.scale, node.GetFloat("scale", 0.0f));
  NXRT_ASSIGN_OR_RETURN(a.mask_filter_value, node.GetFloat("mask_filter_value", -10000.0f));
  NXRT_ASSIGN_OR_RETURN(int64_t unidirectional, node.GetInt("unidirectional", 0));
  a.unidirectional = unidirectional != 0;
  return a;
}

}  // namespace

ep::KernelFactory MultiHeadAttentionFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(MhaAttributes a, ReadMhaAttributes(node));
    return std::unique_ptr<Kernel>(std::make_unique<MultiHeadAttentionKernel>(
        a.heads, a.scale, a.mask_filter_value, a.unidirectional));
  };
}

ep::KernelFactory AttentionFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(MhaAttributes a, ReadMhaAttributes(node));
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, node.GetInts("qkv_hidden_sizes", {}));
    NXRT_ASSIGN_OR_RETURN(int64_t do_rotary, node.GetInt("do_rotary", 0));
    if ((!sizes.empty() && (sizes.size() != 3 || sizes[0] != sizes[1] || sizes[1] != sizes[2])) ||
        do_rotary != 0) {
      return node.Error(StatusCode::kInvalidModel,
                        "attributes qkv_hidden_sizes (unequal sizes) or do_rotary=", do_rotary,
                        " are not supported by the CPU EP");
    }
    return std::unique_ptr<Kernel>(std::make_unique<AttentionKernel>(
        a.heads, a.scale, a.mask_filter_value, a.unidirectional));
  };
}

ep::KernelFactory RotaryEmbeddingFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    contrib::RotaryEmbeddingAttributes a;
    NXRT_ASSIGN_OR_RETURN(int64_t interleaved, node.GetInt("interleaved", 0));
    a.interleaved = interleaved != 0;
    NXRT_ASSIGN_OR_RETURN(a.num_heads, node.GetInt("num_heads", 0));
    NXRT_ASSIGN_OR_RETURN(a.rotary_embedding_dim, node.GetInt("rotary_embedding_dim", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t packed, node.GetInt("is_packed_batching", 0));
    if (packed != 0) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'is_packed_batching' is ", packed,
                        "; the CPU EP rotates padded batches only (0)");
    }
    return std::unique_ptr<Kernel>(std::make_unique<RotaryEmbeddingKernel>(a));
  };
}

ep::KernelFactory GroupQueryAttentionFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    contrib::GqaAttributes a;
    NXRT_ASSIGN_OR_RETURN(a.num_heads, node.GetInt("num_heads"));
    NXRT_ASSIGN_OR_RETURN(a.kv_num_heads, node.GetInt("kv_num_heads"));
    NXRT_ASSIGN_OR_RETURN(a.scale, node.GetFloat("scale", 0.0f));
    NXRT_ASSIGN_OR_RETURN(a.softcap, node.GetFloat("softcap", 0.0f));
    NXRT_ASSIGN_OR_RETURN(a.local_window_size, node.GetInt("local_window_size", -1));
    NXRT_ASSIGN_OR_RETURN(int64_t do_rotary, node.GetInt("do_rotary", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t interleaved, node.GetInt("rotary_interleaved", 0));
    a.do_rotary = do_rotary != 0;
    a.rotary_interleaved = interleaved != 0;
    // ONNX Runtime 1.30 turns smooth softmax on only for the value 1; its schema's default, -1,
    // which ORT shows a plugin on a node without the attribute, means off.
    NXRT_ASSIGN_OR_RETURN(int64_t smooth, node.GetInt("smooth_softmax", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t causal, node.GetInt("causal", 1));
    NXRT_ASSIGN_OR_RETURN(int64_t window_cache, node.GetInt("sliding_window_cache", 0));
    if (smooth == 1 || causal != 1 || window_cache != 0) {
      return node.Error(StatusCode::kInvalidModel,
                        "attributes smooth_softmax=", smooth, ", causal=", causal,
                        ", sliding_window_cache=", window_cache,
                        "; the CPU EP runs causal attention with a full-length cache (0, 1, 0)");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GroupQueryAttentionKernel>(a));
  };
}

}  // namespace nxrt::cpu::kernels
