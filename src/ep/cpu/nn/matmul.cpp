// ep/cpu/nn/matmul.cpp: MatMul and Gemm (oneDNN for float, reference loops otherwise).
// Layer: nxrt_cpu_nn.
#include "ep/cpu/nn/matmul.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "ep/cpu/nn/dnnl_util.h"
#include "ep/cpu/nn/nn_common.h"

namespace nxrt::cpu::nn {

struct DnnlMatMulPrimitive {
  dnnl::matmul primitive;
  dnnl::memory::desc src_md, weights_md, dst_md;
  // Execute once per output batch at the plan's offsets (broadcast batches), or once in all.
  bool per_batch = false;
};

struct DnnlGemmPrimitive {
  dnnl::matmul primitive;
  dnnl::memory::desc src_md, weights_md, dst_md;
};

namespace {

// Accumulator of the reference loops: wide floats, wrap-around integers.
template <typename T>
using RefAcc = std::conditional_t<
    std::is_integral_v<T>, uint64_t,
    std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, double>>;

template <typename T>
RefAcc<T> LoadAcc(T v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  } else {
    return static_cast<RefAcc<T>>(ToAcc(v));
  }
}

template <typename T>
T StoreAcc(RefAcc<T> v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return FromAcc<T>(v);
  }
}

template <typename F>
Status VisitMatMulType(std::string_view op, DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kInt32:
      return f(std::type_identity<int32_t>{});
    case DataType::kInt64:
      return f(std::type_identity<int64_t>{});
    case DataType::kUint32:
      return f(std::type_identity<uint32_t>{});
    case DataType::kUint64:
      return f(std::type_identity<uint64_t>{});
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return VisitFloat(op, dtype, f);
    default:
      return MakeStatus(StatusCode::kUnsupported, op, ": element type ", DataTypeName(dtype),
                        " is not supported (expected float, double, float16, bfloat16, int32, "
                        "int64, uint32 or uint64)");
  }
}

dnnl::memory::dims Dims(std::initializer_list<int64_t> d) { return dnnl::memory::dims(d); }

// One matrix product y[m, n] = a[m, k] @ b[k, n] with element strides for a and b.
template <typename T>
void MatMulRef(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t b_row, int64_t b_col,
               T* y, int64_t m, int64_t n, int64_t k, std::vector<RefAcc<T>>& row) {
  for (int64_t i = 0; i < m; ++i) {
    row.assign(n, RefAcc<T>{});
    for (int64_t p = 0; p < k; ++p) {
      const RefAcc<T> av = LoadAcc(a[i * a_row + p * a_col]);
      const T* brow = b + p * b_row;
      for (int64_t j = 0; j < n; ++j) row[j] += av * LoadAcc(brow[j * b_col]);
    }
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = StoreAcc<T>(row[j]);
  }
}

Status ExecuteMatMul(const dnnl::matmul& primitive, const dnnl::memory::desc& src_md, const void* a,
                     const dnnl::memory::desc& weights_md, const void* b,
                     const dnnl::memory::desc& dst_md, void* y, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  try {
    dnnl::memory src(src_md, engine, const_cast<void*>(a));
    dnnl::memory weights(weights_md, engine, const_cast<void*>(b));
    dnnl::memory dst(dst_md, engine, y);
    primitive.execute(*stream,
                      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus(what, e);
  }
  return Status::Ok();
}

// Creates the float matmul of `plan`, or leaves plan.dnnl null when oneDNN declines.
void CreateDnnlMatMul(MatMulPlan& plan, int64_t batch, bool b_batched, bool same_batches) {
  Result<dnnl::engine> engine = DnnlEngine();
  if (!engine.ok()) return;
  using dt = dnnl::memory::data_type;
  auto prim = std::make_shared<DnnlMatMulPrimitive>();
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  if (!b_batched) {
    // B is shared by every batch: fold the batches of A into M.
    prim->src_md = dnnl::memory::desc(Dims({batch * m, k}), dt::f32, Dims({k, 1}));
    prim->weights_md = dnnl::memory::desc(Dims({k, n}), dt::f32, Dims({n, 1}));
    prim->dst_md = dnnl::memory::desc(Dims({batch * m, n}), dt::f32, Dims({n, 1}));
  } else if (same_batches) {
    prim->src_md = dnnl::memory::desc(Dims({batch, m, k}), dt::f32, Dims({m * k, k, 1}));
    prim->weights_md = dnnl::memory::desc(Dims({batch, k, n}), dt::f32, Dims({k * n, n, 1}));
    prim->dst_md = dnnl::memory::desc(Dims({batch, m, n}), dt::f32, Dims({m * n, n, 1}));
  } else {
    prim->per_batch = true;
    prim->src_md = dnnl::memory::desc(Dims({m, k}), dt::f32, Dims({k, 1}));
    prim->weights_md = dnnl::memory::desc(Dims({k, n}), dt::f32, Dims({n, 1}));
    prim->dst_md = dnnl::memory::desc(Dims({m, n}), dt::f32, Dims({n, 1}));
  }
  try {
    dnnl::matmul::desc desc(prim->src_md, prim->weights_md, prim->dst_md);
    prim->primitive = dnnl::matmul(dnnl::matmul::primitive_desc(desc, *engine));
  } catch (const dnnl::error&) {
    return;
  }
  plan.dnnl = std::move(prim);
}

}  // namespace

Result<MatMulPlan> PrepareMatMul(DataType dtype, std::span<const int64_t> a_shape,
                                 std::span<const int64_t> b_shape) {
  NXRT_RETURN_IF_ERROR(VisitMatMulType("MatMul", dtype, [](auto) { return Status::Ok(); }));
  NXRT_RETURN_IF_ERROR(CheckShape("MatMul", "input A", a_shape));
  NXRT_RETURN_IF_ERROR(CheckShape("MatMul", "input B", b_shape));
  if (a_shape.empty() || b_shape.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "MatMul: inputs need rank >= 1, got A ",
                      Str(a_shape), " and B ", Str(b_shape));
  }
  // 1-D promotion: A [K] -> [1, K], B [K] -> [K, 1].
  const Shape a =
      a_shape.size() == 1 ? Shape{1, a_shape[0]} : Shape(a_shape.begin(), a_shape.end());
  const Shape b =
      b_shape.size() == 1 ? Shape{b_shape[0], 1} : Shape(b_shape.begin(), b_shape.end());
  MatMulPlan plan;
  plan.dtype = dtype;
  plan.m = a[a.size() - 2];
  plan.k = a[a.size() - 1];
  plan.n = b[b.size() - 1];
  if (b[b.size() - 2] != plan.k) {
    return MakeStatus(StatusCode::kInvalidArgument, "MatMul: A ", Str(a_shape), " has K=", plan.k,
                      " but B ", Str(b_shape), " has K=", b[b.size() - 2]);
  }
  const std::span<const int64_t> a_batch(a.data(), a.size() - 2);
  const std::span<const int64_t> b_batch(b.data(), b.size() - 2);
  Result<Shape> batch_shape = BroadcastShapes("MatMul", a_batch, b_batch);
  if (!batch_shape.ok()) {
    return MakeStatus(StatusCode::kInvalidArgument, "MatMul: batch dims of A ", Str(a_shape),
                      " and B ", Str(b_shape), " do not broadcast");
  }
  plan.output_shape = *batch_shape;
  if (a_shape.size() > 1) plan.output_shape.push_back(plan.m);
  if (b_shape.size() > 1) plan.output_shape.push_back(plan.n);
  // Offsets of each output batch's A and B matrices (broadcast dims repeat a matrix).
  const std::vector<int64_t> a_strides = BroadcastStrides(a_batch, *batch_shape);
  const std::vector<int64_t> b_strides = BroadcastStrides(b_batch, *batch_shape);
  const int64_t batch = Product(*batch_shape);
  std::vector<int64_t> idx(batch_shape->size(), 0);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t ao = 0, bo = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      ao += idx[d] * a_strides[d];
      bo += idx[d] * b_strides[d];
    }
    plan.a_offsets.push_back(ao * plan.m * plan.k);
    plan.b_offsets.push_back(bo * plan.k * plan.n);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < (*batch_shape)[d]) break;
      idx[d] = 0;
    }
  }
  if (dtype == DataType::kFloat && batch * plan.m * plan.n > 0 && plan.k > 0) {
    const bool b_batched = Product(b_batch) > 1;
    const bool same = std::equal(a_batch.begin(), a_batch.end(), b_batch.begin(), b_batch.end());
    CreateDnnlMatMul(plan, batch, b_batched, same);
  }
  return plan;
}

Status MatMul(const MatMulPlan& plan, const void* a, const void* b, void* y) {
  const int64_t batch = static_cast<int64_t>(plan.a_offsets.size());
  const int64_t mn = plan.m * plan.n;
  if (batch * mn == 0) return Status::Ok();
  if (plan.dnnl != nullptr) {
    const DnnlMatMulPrimitive& p = *plan.dnnl;
    if (!p.per_batch) {
      return ExecuteMatMul(p.primitive, p.src_md, a, p.weights_md, b, p.dst_md, y, "MatMul");
    }
    for (int64_t i = 0; i < batch; ++i) {
      NXRT_RETURN_IF_ERROR(
          ExecuteMatMul(p.primitive, p.src_md, static_cast<const float*>(a) + plan.a_offsets[i],
                        p.weights_md, static_cast<const float*>(b) + plan.b_offsets[i], p.dst_md,
                        static_cast<float*>(y) + i * mn, "MatMul"));
    }
    return Status::Ok();
  }
  return VisitMatMulType("MatMul", plan.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    std::vector<RefAcc<T>> row;
    for (int64_t i = 0; i < batch; ++i) {
      MatMulRef(static_cast<const T*>(a) + plan.a_offsets[i], plan.k, 1,
                static_cast<const T*>(b) + plan.b_offsets[i], plan.n, 1,
                static_cast<T*>(y) + i * mn, plan.m, plan.n, plan.k, row);
    }
    return Status::Ok();
  });
}

Result<GemmPlan> PrepareGemm(DataType dtype, std::span<const int64_t> a_shape,
                             std::span<const int64_t> b_shape,
                             std::optional<std::span<const int64_t>> c_shape,
                             const GemmAttributes& attributes) {
  NXRT_RETURN_IF_ERROR(VisitMatMulType("Gemm", dtype, [](auto) { return Status::Ok(); }));
  if (a_shape.size() != 2 || b_shape.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "Gemm: A ", Str(a_shape), " and B ",
                      Str(b_shape), " must both have rank 2");
  }
  NXRT_RETURN_IF_ERROR(CheckShape("Gemm", "input A", a_shape));
  NXRT_RETURN_IF_ERROR(CheckShape("Gemm", "input B", b_shape));
  GemmPlan plan;
  plan.dtype = dtype;
  plan.attributes = attributes;
  plan.m = attributes.trans_a ? a_shape[1] : a_shape[0];
  plan.k = attributes.trans_a ? a_shape[0] : a_shape[1];
  const int64_t kb = attributes.trans_b ? b_shape[1] : b_shape[0];
  plan.n = attributes.trans_b ? b_shape[0] : b_shape[1];
  if (kb != plan.k) {
    return MakeStatus(StatusCode::kInvalidArgument, "Gemm: A ", Str(a_shape),
                      attributes.trans_a ? " (transA)" : "", " has K=", plan.k, " but B ",
                      Str(b_shape), attributes.trans_b ? " (transB)" : "", " has K=", kb);
  }
  plan.output_shape = {plan.m, plan.n};
  if (c_shape.has_value()) {
    const std::span<const int64_t> c = *c_shape;
    bool ok = c.size() <= 2;
    for (size_t i = 0; ok && i < c.size(); ++i) {
      const int64_t want = plan.output_shape[2 - c.size() + i];
      ok = c[i] == 1 || c[i] == want;
    }
    if (!ok) {
      return MakeStatus(StatusCode::kInvalidArgument, "Gemm: C ", Str(c),
                        " does not broadcast to the output ", Str(plan.output_shape));
    }
    plan.has_c = true;
    plan.c_strides = BroadcastStrides(c, plan.output_shape);
  }
  if (dtype != DataType::kFloat || plan.m * plan.n == 0 || plan.k == 0) return plan;
  Result<dnnl::engine> engine = DnnlEngine();
  if (!engine.ok()) return plan;
  using dt = dnnl::memory::data_type;
  auto prim = std::make_shared<DnnlGemmPrimitive>();
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  prim->src_md =
      dnnl::memory::desc(Dims({m, k}), dt::f32, attributes.trans_a ? Dims({1, m}) : Dims({k, 1}));
  prim->weights_md =
      dnnl::memory::desc(Dims({k, n}), dt::f32, attributes.trans_b ? Dims({1, k}) : Dims({n, 1}));
  prim->dst_md = dnnl::memory::desc(Dims({m, n}), dt::f32, Dims({n, 1}));
  try {
    dnnl::primitive_attr attr;
    if (attributes.alpha != 1.0f) attr.set_output_scales(0, {attributes.alpha});
    if (plan.has_c && attributes.beta != 0.0f) {
      // Compute writes beta's operand (C broadcast) into Y first; the sum post-op adds it.
      dnnl::post_ops ops;
      ops.append_sum(attributes.beta);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::desc desc(prim->src_md, prim->weights_md, prim->dst_md);
    prim->primitive = dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, *engine));
  } catch (const dnnl::error&) {
    return plan;
  }
  plan.dnnl = std::move(prim);
  return plan;
}

namespace {

template <typename T>
void GemmRef(const GemmPlan& plan, const T* a, const T* b, const T* c, T* y) {
  const GemmAttributes& at = plan.attributes;
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  std::vector<RefAcc<T>> row;
  MatMulRef(a, at.trans_a ? 1 : k, at.trans_a ? m : 1, b, at.trans_b ? 1 : n, at.trans_b ? k : 1, y,
            m, n, k, row);
  const bool use_c = plan.has_c && at.beta != 0.0f;
  const bool integral_scales = at.alpha == std::trunc(at.alpha) && at.beta == std::trunc(at.beta);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T& out = y[i * n + j];
      const T cv = use_c ? c[i * plan.c_strides[0] + j * plan.c_strides[1]] : T{};
      if constexpr (std::is_integral_v<T>) {
        if (integral_scales) {
          const uint64_t alpha = static_cast<uint64_t>(static_cast<int64_t>(at.alpha));
          const uint64_t beta = static_cast<uint64_t>(static_cast<int64_t>(at.beta));
          out = static_cast<T>(alpha * LoadAcc(out) + (use_c ? beta * LoadAcc(cv) : 0));
        } else {
          const double v = at.alpha * static_cast<double>(out) +
                           (use_c ? at.beta * static_cast<double>(cv) : 0.0);
          out = static_cast<T>(static_cast<int64_t>(v));
        }
      } else {
        using A = RefAcc<T>;
        A v = static_cast<A>(at.alpha) * static_cast<A>(ToAcc(out));
        if (use_c) v += static_cast<A>(at.beta) * static_cast<A>(ToAcc(cv));
        out = FromAcc<T>(v);
      }
    }
  }
}

}  // namespace

Status Gemm(const GemmPlan& plan, const void* a, const void* b, const void* c, void* y) {
  if (plan.m * plan.n == 0) return Status::Ok();
  if (plan.dnnl != nullptr) {
    if (plan.has_c && plan.attributes.beta != 0.0f) {
      const int64_t out_strides[] = {plan.n, 1};
      StridedCopy(plan.dtype, plan.output_shape, c, plan.c_strides, y, out_strides);
    }
    const DnnlGemmPrimitive& p = *plan.dnnl;
    return ExecuteMatMul(p.primitive, p.src_md, a, p.weights_md, b, p.dst_md, y, "Gemm");
  }
  return VisitMatMulType("Gemm", plan.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    GemmRef<T>(plan, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(c),
               static_cast<T*>(y));
    return Status::Ok();
  });
}

}  // namespace nxrt::cpu::nn
