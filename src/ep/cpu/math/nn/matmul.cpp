// ep/cpu/math/nn/matmul.cpp: MatMul and Gemm (oneDNN or nxrt's own kernels for float, reference
// loops otherwise). Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/matmul.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <type_traits>

#include "core/cpu_features.h"
#include "ep/cpu/math/fast_math.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_util.h"
#include "ep/cpu/math/nn/gemv.h"
#include "ep/cpu/math/nn/sgemm_avx2.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::nn {

struct DnnlMatMulPrimitive {
  dnnl::matmul primitive;
  dnnl::memory::desc src_md, weights_md, dst_md, bias_md, scratchpad_md;
  bool has_bias = false;
  // Execute once per output batch at the plan's offsets (broadcast batches), or once in all.
  bool per_batch = false;
  int threads = 1;  // the OpenMP thread count the primitive was created (and runs) with
  // B in weights_md's layout, made at Prepare or shared from an earlier plan; null: B is read
  // as given.
  std::shared_ptr<const PackedWeights> packed;
  // > 0 when `packed` is in 64-column panels (gemv.h), this many floats apart.
  int64_t gemv_panel_stride = 0;
  // > 0 when `packed` is in sgemm_avx2.h's 16-column panels, this many floats apart: then every
  // call of the plan runs that kernel (column units) and never the primitive, which reads B plain.
  int64_t panel16_stride = 0;
  // Relu and Clip run after the primitive, keeping NaN (dnnl_util.h ClampKeepingNaN); unset for
  // the other activations, which are post-ops.
  std::optional<ClampKeepingNaN> clamp_after;
};

struct PackedWeights {
  dnnl::memory memory;  // owns its buffer; memory.get_desc() is the layout
};

struct DnnlMatMulBindings::Impl {
  dnnl::memory src, weights, dst, bias, scratchpad;
};

DnnlMatMulBindings::DnnlMatMulBindings() = default;
DnnlMatMulBindings::~DnnlMatMulBindings() = default;
DnnlMatMulBindings::DnnlMatMulBindings(DnnlMatMulBindings&&) noexcept = default;
DnnlMatMulBindings& DnnlMatMulBindings::operator=(DnnlMatMulBindings&&) noexcept = default;
DnnlMatMulBindings::DnnlMatMulBindings(const DnnlMatMulBindings& other) { *this = other; }
DnnlMatMulBindings& DnnlMatMulBindings::operator=(const DnnlMatMulBindings& other) {
  if (this == &other) return *this;
  impl.reset();
  Result<dnnl::engine> engine = DnnlEngine();
  if (other.impl == nullptr || !engine.ok()) return *this;
  // Copies are made at Prepare time (plans are returned by value), not per Compute.
  impl = std::make_unique<Impl>(Impl{Rebind(other.impl->src, *engine),
                                     Rebind(other.impl->weights, *engine),
                                     Rebind(other.impl->dst, *engine),
                                     Rebind(other.impl->bias, *engine),
                                     Rebind(other.impl->scratchpad, *engine)});
  return *this;
}

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

// The element types of MatMul and Gemm: the float types with bfloat16 (oneDNN for float, the
// reference loops for the others) and the 32- and 64-bit integers.
using MatMulTypes =
    math::Concat<math::FloatTypesBf16, math::TypeList<int32_t, int64_t, uint32_t, uint64_t>>;

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

// Plain row-major strides of `dims`.
dnnl::memory::dims DenseStrides(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

dnnl::algorithm EltwiseAlgorithm(MatMulActivation activation) {
  switch (activation) {
    case MatMulActivation::kLeakyRelu:
      return dnnl::algorithm::eltwise_relu;
    case MatMulActivation::kSigmoid:
      return dnnl::algorithm::eltwise_logistic;
    case MatMulActivation::kTanh:
      return dnnl::algorithm::eltwise_tanh;
    case MatMulActivation::kGeluErf:
      return dnnl::algorithm::eltwise_gelu_erf;
    case MatMulActivation::kGeluTanh:
      return dnnl::algorithm::eltwise_gelu_tanh;
    case MatMulActivation::kSwish:
      return dnnl::algorithm::eltwise_swish;
    case MatMulActivation::kNone:
    case MatMulActivation::kRelu:  // ClampKeepingNaN after the primitive
    case MatMulActivation::kClip:
      break;
  }
  return dnnl::algorithm::undef;
}

// The distance between gemv.h's 64-column panels when `md` (a packed B [K, N]) is oneDNN's
// BA16a64b layout, else 0.
int64_t GemvPanelStride(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.ndims != 2 || d.format_kind != dnnl_blocked || d.offset0 != 0) return 0;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  const bool panels = b.inner_nblks == 2 && b.inner_blks[0] == 16 && b.inner_idxs[0] == 0 &&
                      b.inner_blks[1] == 64 && b.inner_idxs[1] == 1 && b.strides[0] == 16 * 64;
  return panels ? b.strides[1] : 0;
}

// The distance between sgemm_avx2.h's 16-column panels when `md` (a packed B [K, N]) is oneDNN's
// BA16a16b layout, else 0. 16x16 blocks, rows within a block 16 floats apart and the blocks of a
// panel 256 floats apart: row k of a panel is at 16k, as sgemm_avx2.h reads it (K padded to 16).
int64_t Panel16Stride(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.ndims != 2 || d.format_kind != dnnl_blocked || d.offset0 != 0) return 0;
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  const bool panels = b.inner_nblks == 2 && b.inner_blks[0] == 16 && b.inner_idxs[0] == 0 &&
                      b.inner_blks[1] == kSgemmPanel && b.inner_idxs[1] == 1 &&
                      b.strides[0] == 16 * kSgemmPanel;
  return panels ? b.strides[1] : 0;
}

// What CreateDnnlPrimitive builds: descriptors with plain strides (weights possibly transposed),
// the constant B when packing is wanted, Gemm's alpha/beta(sum) and the epilogue.
struct DnnlMatMulSpec {
  dnnl::memory::desc src_md, weights_md, dst_md;
  const void* constant_weights = nullptr;
  std::shared_ptr<const PackedWeights> prepacked;  // a copy of the constant B (any layout)
  float alpha = 1.0f;
  float sum_beta = 0.0f;  // != 0: add beta * (what Y holds before the call)
  bool bias = false;      // bias [N] broadcast over the other dst dims
  MatMulEpilogue epilogue;
  int threads = 1;
};

// Whether a constant B that oneDNN reads plain (as stored or transposed) goes to sgemm_avx2.h's
// kernel instead: a CPU with AVX2 but not AVX-512 (where oneDNN 2.6's gemm:jit packs B again on
// every call), A [rows, K] row-major with 2 rows or more (one row stays on oneDNN's GEMV), and
// Y = A @ B (+ bias, then an activation): no output scale, no sum.
bool WantPanels16(const DnnlMatMulSpec& spec) {
  const dnnl::memory::dims dims = spec.src_md.dims();
  return !CpuHasAvx512() && CpuHasAvx2() && dims.size() == 2 && dims[0] >= 2 &&
         spec.src_md == dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                                           dnnl::memory::format_tag::ab) &&
         spec.alpha == 1.0f && spec.sum_beta == 0.0f;
}

// The created primitive, or null when oneDNN declines the problem.
std::shared_ptr<DnnlMatMulPrimitive> CreateDnnlPrimitive(const DnnlMatMulSpec& spec) {
  Result<dnnl::engine> engine = DnnlEngine();
  Result<dnnl::stream*> stream = DnnlStream();
  if (!engine.ok() || !stream.ok()) return nullptr;
  auto prim = std::make_shared<DnnlMatMulPrimitive>();
  prim->threads = std::max(spec.threads, 1);
  prim->src_md = spec.src_md;
  prim->dst_md = spec.dst_md;
  // oneDNN sizes its parallel decomposition by the creating thread's OpenMP setting.
  SetDnnlThreads(prim->threads);
  try {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (spec.alpha != 1.0f) attr.set_output_scales(0, {spec.alpha});
    dnnl::post_ops ops;
    if (spec.sum_beta != 0.0f) ops.append_sum(spec.sum_beta);
    const MatMulActivation act = spec.epilogue.activation;
    if (act == MatMulActivation::kRelu) {
      prim->clamp_after =
          ClampKeepingNaN{1.0f, 0.0f, 0.0f, std::numeric_limits<float>::infinity()};
    } else if (act == MatMulActivation::kClip) {
      prim->clamp_after = ClampKeepingNaN{1.0f, 0.0f, spec.epilogue.alpha, spec.epilogue.beta};
    } else if (act != MatMulActivation::kNone) {
      // oneDNN's swish is x * sigmoid(alpha * x), as MatMulEpilogue's.
      const bool slope = act == MatMulActivation::kLeakyRelu || act == MatMulActivation::kSwish;
      ops.append_eltwise(1.0f, EltwiseAlgorithm(act), slope ? spec.epilogue.alpha : 0.0f, 0.0f);
    }
    attr.set_post_ops(ops);
    if (spec.bias) {
      dnnl::memory::dims bias_dims(spec.dst_md.dims().size(), 1);
      bias_dims.back() = spec.dst_md.dims().back();
      prim->bias_md = dnnl::memory::desc(bias_dims, dnnl::memory::data_type::f32,
                                         DenseStrides(bias_dims));
      prim->has_bias = true;
    }
    auto make_pd = [&](const dnnl::memory::desc& weights) {
      auto desc = prim->has_bias
                      ? dnnl::matmul::desc(spec.src_md, weights, prim->bias_md, spec.dst_md)
                      : dnnl::matmul::desc(spec.src_md, weights, spec.dst_md);
      return dnnl::matmul::primitive_desc(desc, attr, *engine);
    };
    dnnl::matmul::primitive_desc pd;
    bool packed = false;
    const bool constant = spec.constant_weights != nullptr || spec.prepacked != nullptr;
    if (constant) {
      // Let oneDNN choose the weights layout; fall back to the plain one if it cannot.
      try {
        pd = make_pd(dnnl::memory::desc(spec.weights_md.dims(), dnnl::memory::data_type::f32,
                                        dnnl::memory::format_tag::any));
        packed = pd.weights_desc() != spec.weights_md;
      } catch (const dnnl::error&) {
        packed = false;
      }
    }
    if (!packed) pd = make_pd(spec.weights_md);
    prim->weights_md = pd.weights_desc();
    // The layout of the plan's copy of a constant B: the primitive's, or 16-column panels.
    dnnl::memory::desc copy_md = prim->weights_md;
    const bool plain = prim->weights_md.data.format_kind == dnnl_blocked &&
                       prim->weights_md.data.format_desc.blocking.inner_nblks == 0;
    if (constant && plain && WantPanels16(spec)) {
      copy_md = dnnl::memory::desc(spec.weights_md.dims(), dnnl::memory::data_type::f32,
                                   dnnl::memory::format_tag::BA16a16b);
      prim->panel16_stride = Panel16Stride(copy_md);
      if (prim->panel16_stride == 0) copy_md = prim->weights_md;
    }
    prim->scratchpad_md = pd.scratchpad_desc();
    prim->primitive = dnnl::matmul(pd);
    if (constant) {
      // Every Compute reads the plan's copy, also when oneDNN reads B plain (as on CPUs without
      // AVX-512 or AVX2): the earlier plan's when the layout is the same, else one laid out here
      // once, from B or (B freed) from the earlier copy.
      if (spec.prepacked != nullptr && spec.prepacked->memory.get_desc() == copy_md) {
        prim->packed = spec.prepacked;
      } else {
        auto copy = std::make_shared<PackedWeights>();
        copy->memory = dnnl::memory(copy_md, *engine);
        dnnl::memory source =
            spec.constant_weights != nullptr
                ? dnnl::memory(spec.weights_md, *engine, const_cast<void*>(spec.constant_weights))
                : spec.prepacked->memory;
        dnnl::reorder(source, copy->memory).execute(**stream, source, copy->memory);
        (*stream)->wait();
        prim->packed = std::move(copy);
      }
    }
    if (prim->packed != nullptr) prim->gemv_panel_stride = GemvPanelStride(prim->weights_md);
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return prim;
}

// Whether a product with M = `m` runs on gemv.h's kernel instead of `prim` (see gemv.h for the
// measurements): one row and B packed in 64-column panels.
bool UseGemv(const DnnlMatMulPrimitive& prim, int64_t m) {
  return m == 1 && prim.packed != nullptr && prim.gemv_panel_stride > 0 && CpuHasAvx512();
}

// Columns per unit of nxrt's own kernels (gemv.h's panel, four of sgemm_avx2.h's).
constexpr int64_t kColumnUnit = 64;
static_assert(kColumnUnit == kGemvPanel && kColumnUnit % kSgemmPanel == 0);

// Memory objects for `prim`'s arguments, bound to buffers at each Execute.
DnnlMatMulBindings MakeBindings(const DnnlMatMulPrimitive& prim) {
  DnnlMatMulBindings bindings;
  Result<dnnl::engine> engine = DnnlEngine();
  if (!engine.ok()) return bindings;
  bindings.impl = std::make_unique<DnnlMatMulBindings::Impl>();
  DnnlMatMulBindings::Impl& b = *bindings.impl;
  b.src = dnnl::memory(prim.src_md, *engine, DNNL_MEMORY_NONE);
  b.weights = prim.packed && prim.panel16_stride == 0
                  ? dnnl::memory(prim.weights_md, *engine,
                                 prim.packed->memory.get_data_handle())
                  : dnnl::memory(prim.weights_md, *engine, DNNL_MEMORY_NONE);
  b.dst = dnnl::memory(prim.dst_md, *engine, DNNL_MEMORY_NONE);
  if (prim.has_bias) b.bias = dnnl::memory(prim.bias_md, *engine, DNNL_MEMORY_NONE);
  if (prim.scratchpad_md.get_size() > 0) {
    b.scratchpad = dnnl::memory(prim.scratchpad_md, *engine, DNNL_MEMORY_NONE);
  }
  return bindings;
}

// Runs `prim` on the given buffers (a null `b` when the weights are packed) through the plan's
// bindings: no oneDNN object and, with a big enough scratchpad, no buffer is allocated.
Status ExecuteDnnl(const DnnlMatMulPrimitive& prim, DnnlMatMulBindings& bindings, const void* a,
                   const void* b, const void* bias, void* y, std::span<std::byte> scratchpad,
                   std::string_view what) {
  if (bindings.impl == nullptr) {
    return MakeStatus(StatusCode::kInternal, what, ": the oneDNN plan has no bindings");
  }
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  DnnlMatMulBindings::Impl& m = *bindings.impl;
  const size_t need = prim.scratchpad_md.get_size();
  std::unique_ptr<std::byte[]> temporary;  // only for callers that pass too little scratchpad
  void* pad = scratchpad.data();
  if (need > 0 && scratchpad.size() < need) {
    temporary = std::make_unique<std::byte[]>(need + 64);
    pad = temporary.get() + (64 - reinterpret_cast<uintptr_t>(temporary.get()) % 64) % 64;
  }
  SetDnnlThreads(prim.threads);
  dnnl_exec_arg_t args[5];
  int count = 0;
  try {
    m.src.set_data_handle(const_cast<void*>(a));
    args[count++] = {DNNL_ARG_SRC, m.src.get()};
    if (!prim.packed) m.weights.set_data_handle(const_cast<void*>(b));
    args[count++] = {DNNL_ARG_WEIGHTS, m.weights.get()};
    m.dst.set_data_handle(y);
    args[count++] = {DNNL_ARG_DST, m.dst.get()};
    if (prim.has_bias) {
      m.bias.set_data_handle(const_cast<void*>(bias));
      args[count++] = {DNNL_ARG_BIAS, m.bias.get()};
    }
    if (m.scratchpad) {
      m.scratchpad.set_data_handle(pad);
      args[count++] = {DNNL_ARG_SCRATCHPAD, m.scratchpad.get()};
    }
    dnnl::error::wrap_c_api(dnnl_primitive_execute(prim.primitive.get(), stream->get(), count, args),
                            "could not execute a matmul");
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus(what, e);
  }
  if (prim.clamp_after) {
    ApplyClampKeepingNaN(*prim.clamp_after, static_cast<float*>(y),
                         static_cast<int64_t>(prim.dst_md.get_size() / sizeof(float)),
                         prim.threads);
  }
  return Status::Ok();
}

// `packed` laid out as `plain` (B as stored) in a buffer of its own.
Result<std::shared_ptr<const std::vector<float>>> UnpackWeights(const PackedWeights& packed,
                                                                const dnnl::memory::desc& plain) {
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  auto out = std::make_shared<std::vector<float>>(plain.get_size() / sizeof(float));
  try {
    dnnl::memory dst(plain, engine, out->data());
    dnnl::memory src = packed.memory;
    dnnl::reorder(src, dst).execute(*stream, src, dst);
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus("re-laying out packed weights", e);
  }
  return std::shared_ptr<const std::vector<float>>(std::move(out));
}

// Creates the float matmul of `plan` (one primitive over all batches when oneDNN takes it), or
// leaves plan.dnnl null when oneDNN declines.
void CreateDnnlMatMul(MatMulPlan& plan, std::span<const int64_t> a_batch,
                      std::span<const int64_t> b_batch, const Shape& batch_shape,
                      const MatMulOptions& options) {
  using dt = dnnl::memory::data_type;
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  const int64_t batch = Product(batch_shape);
  DnnlMatMulSpec spec;
  spec.bias = plan.epilogue.bias;
  spec.epilogue = plan.epilogue;
  spec.threads = DnnlThreadsFor(batch * m * n * k, options.threads);
  auto plain = [](dnnl::memory::dims dims) {
    return dnnl::memory::desc(dims, dt::f32, DenseStrides(dims));
  };
  std::shared_ptr<DnnlMatMulPrimitive> prim;
  if (Product(b_batch) == 1) {
    // B is shared by every batch: fold the batches of A into M (and pack a constant B).
    spec.src_md = plain({batch * m, k});
    spec.weights_md = plain({k, n});
    spec.dst_md = plain({batch * m, n});
    spec.constant_weights = options.constant_b;
    spec.prepacked = options.prepacked_b;
    prim = CreateDnnlPrimitive(spec);
  } else if (batch_shape.size() + 2 <= DNNL_MAX_NDIMS) {
    // One batched matmul; batch dims of 1 in A or B broadcast.
    const size_t r = batch_shape.size();
    dnnl::memory::dims ad(r + 2, 1), bd(r + 2, 1), yd(r + 2, 1);
    std::copy(a_batch.begin(), a_batch.end(), ad.begin() + (r - a_batch.size()));
    std::copy(b_batch.begin(), b_batch.end(), bd.begin() + (r - b_batch.size()));
    std::copy(batch_shape.begin(), batch_shape.end(), yd.begin());
    ad[r] = m, ad[r + 1] = k, bd[r] = k, bd[r + 1] = n, yd[r] = m, yd[r + 1] = n;
    spec.src_md = plain(ad);
    spec.weights_md = plain(bd);
    spec.dst_md = plain(yd);
    prim = CreateDnnlPrimitive(spec);
  }
  if (prim == nullptr) {
    spec.src_md = plain({m, k});
    spec.weights_md = plain({k, n});
    spec.dst_md = plain({m, n});
    spec.constant_weights = nullptr;
    spec.prepacked = nullptr;
    spec.threads = DnnlThreadsFor(m * n * k, options.threads);
    prim = CreateDnnlPrimitive(spec);
    if (prim == nullptr) return;
    prim->per_batch = batch > 1;
  }
  plan.bindings = MakeBindings(*prim);
  plan.scratchpad_bytes = prim->scratchpad_md.get_size();
  plan.dnnl = std::move(prim);
}

// The epilogue's activation of `v` (reference loops).
double ActivateEpilogue(double v, const MatMulEpilogue& e) {
  switch (e.activation) {
    case MatMulActivation::kNone:
      return v;
    case MatMulActivation::kRelu:
      return std::max(v, 0.0);
    case MatMulActivation::kLeakyRelu:
      return v < 0 ? e.alpha * v : v;
    case MatMulActivation::kClip:
      return std::min(std::max(v, static_cast<double>(e.alpha)), static_cast<double>(e.beta));
    case MatMulActivation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-v));
    case MatMulActivation::kTanh:
      return std::tanh(v);
    case MatMulActivation::kGeluErf:
      return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case MatMulActivation::kGeluTanh:
      return 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
    case MatMulActivation::kSwish:
      return v / (1.0 + std::exp(-e.alpha * v));
  }
  return v;
}

// Applies the epilogue (bias, then activation) to `rows` rows of `n` outputs.
template <typename T>
void EpilogueRef(const MatMulEpilogue& e, const T* bias, T* y, int64_t rows, int64_t n) {
  if constexpr (!std::is_integral_v<T>) {
    if (!e.bias && e.activation == MatMulActivation::kNone) return;
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double v = static_cast<double>(ToAcc(y[i * n + j]));
        if (e.bias) v += static_cast<double>(ToAcc(bias[j]));
        y[i * n + j] = FromAcc<T>(static_cast<RefAcc<T>>(ActivateEpilogue(v, e)));
      }
    }
  }
}

// The column units of a product with M = `m` (all batches folded into M) and N = `n` on nxrt's
// own kernels: one row on gemv.h's, any M on sgemm_avx2.h's when `prim` packed B for it; 0 when
// the product runs on the primitive.
int64_t ColumnUnits(const DnnlMatMulPrimitive& prim, int64_t m, int64_t n) {
  const bool own = UseGemv(prim, m) || (prim.packed != nullptr && prim.panel16_stride > 0);
  return own ? (n + kColumnUnit - 1) / kColumnUnit : 0;
}

// The epilogue's activation of `count` floats at `y` in place, vectorised (fast_math.h; within a
// few float ULPs of ActivateEpilogue). Relu and Clip keep NaN, as ClampKeepingNaN.
void ActivateFloats(const MatMulEpilogue& e, float* y, int64_t count) {
  const float alpha = e.alpha, beta = e.beta;
  switch (e.activation) {
    case MatMulActivation::kNone:
      return;
    case MatMulActivation::kRelu:
      return math::MapElements([](float x) { return x < 0.0f ? 0.0f : x; }, y, y, count);
    case MatMulActivation::kLeakyRelu:
      return math::MapElements([alpha](float x) { return x < 0.0f ? alpha * x : x; }, y, y,
                               count);
    case MatMulActivation::kClip:
      return math::MapElements(
          [alpha, beta](float x) { return x < alpha ? alpha : (x > beta ? beta : x); }, y, y,
          count);
    case MatMulActivation::kSigmoid:
      return math::MapElements([](float x) { return math::FastSigmoid(x); }, y, y, count);
    case MatMulActivation::kTanh:
      return math::MapElements([](float x) { return math::FastTanh(x); }, y, y, count);
    case MatMulActivation::kGeluErf:
      return math::MapElements(
          [](float x) { return 0.5f * x * (1.0f + math::FastErf(x * 0.70710678f)); }, y, y,
          count);
    case MatMulActivation::kGeluTanh:
      return math::MapElements(
          [](float x) {
            return 0.5f * x * (1.0f + math::FastTanh(0.79788456f * (x + 0.044715f * x * x * x)));
          },
          y, y, count);
    case MatMulActivation::kSwish:
      return math::MapElements([alpha](float x) { return x * math::FastSigmoid(alpha * x); }, y,
                               y, count);
  }
}

// Columns [col_begin, col_end) of y[m, n] = act(a[m, k] @ B + bias) on sgemm_avx2.h's kernel,
// the activation run per block of kSgemmBlockN columns while the block is still in cache.
void RunSgemmColumns(const SgemmB& b, const MatMulEpilogue& epilogue, const float* a,
                     const float* bias, float* y, int64_t m, int64_t k, int64_t n,
                     int64_t col_begin, int64_t col_end) {
  for (int64_t j = col_begin; j < col_end; j += kSgemmBlockN) {
    const int64_t j_end = std::min(col_end, j + kSgemmBlockN);
    SgemmAvx2(a, k, m, k, b, bias, y, n, j, j_end);
    if (epilogue.activation == MatMulActivation::kNone) continue;
    for (int64_t i = 0; i < m; ++i) ActivateFloats(epilogue, y + i * n + j, j_end - j);
  }
}

// Units [begin, end) of y[m, n] = act(a[m, k] @ B + bias) on nxrt's own kernel for `prim`'s
// packed B (ColumnUnits > 0).
void RunColumns(const DnnlMatMulPrimitive& prim, const MatMulEpilogue& epilogue, const float* a,
                const float* bias, float* y, int64_t m, int64_t k, int64_t n, int64_t units,
                int64_t begin, int64_t end) {
  begin = std::clamp<int64_t>(begin, 0, units);
  end = std::clamp<int64_t>(end, begin, units);
  const float* packed = static_cast<const float*>(prim.packed->memory.get_data_handle());
  const int64_t first = begin * kColumnUnit, last = std::min(n, end * kColumnUnit);
  if (prim.panel16_stride == 0) {
    GemvPanels64(a, packed, k, n, prim.gemv_panel_stride, bias, y, begin, end);
    ActivateFloats(epilogue, y + first, last - first);
    return;
  }
  RunSgemmColumns(SgemmB{packed, prim.panel16_stride, kSgemmPanel}, epilogue, a, bias, y, m, k,
                  n, first, last);
}

// Whether a float product whose B is not constant runs on sgemm_avx2.h's kernel reading B as
// given, batch by batch: a CPU with AVX2 but not AVX-512 and two rows of A or more (attention's
// QK^T and PV; oneDNN 2.6 runs them on its gemm:jit there).
bool WantPlainB(const MatMulPlan& plan, const MatMulOptions& options) {
  return plan.dtype == DataType::kFloat && !CpuHasAvx512() && CpuHasAvx2() &&
         options.constant_b == nullptr && options.prepacked_b == nullptr && plan.m >= 2 &&
         plan.n > 0 && plan.k > 0 && !plan.a_offsets.empty();
}

}  // namespace

Result<MatMulPlan> PrepareMatMul(DataType dtype, std::span<const int64_t> a_shape,
                                 std::span<const int64_t> b_shape, const MatMulOptions& options) {
  NXRT_RETURN_IF_ERROR(math::DispatchType<MatMulTypes>(dtype, "MatMul", [](auto) {}));
  const MatMulEpilogue& epilogue = options.epilogue;
  if ((epilogue.bias || epilogue.activation != MatMulActivation::kNone) &&
      dtype != DataType::kFloat && dtype != DataType::kDouble && dtype != DataType::kFloat16 &&
      dtype != DataType::kBFloat16) {
    return MakeStatus(StatusCode::kUnsupported, "MatMul: a bias or activation epilogue needs a ",
                      "float type, got ", DataTypeName(dtype));
  }
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
  plan.epilogue = epilogue;
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
  if (WantPlainB(plan, options)) {
    plan.column_units = batch * ((plan.n + kColumnUnit - 1) / kColumnUnit);
    plan.column_units_read_b = true;
  } else if (dtype == DataType::kFloat && batch * plan.m * plan.n > 0 && plan.k > 0) {
    CreateDnnlMatMul(plan, a_batch, b_batch, *batch_shape, options);
  }
  if (plan.dnnl != nullptr) {
    plan.packed_b = plan.dnnl->packed;
    if (!plan.dnnl->per_batch) {
      plan.column_units = ColumnUnits(*plan.dnnl, batch * plan.m, plan.n);
    }
  }
  if (options.constant_b == nullptr && options.prepacked_b != nullptr && plan.packed_b == nullptr) {
    const dnnl::memory::dims dims = {plan.k, plan.n};
    NXRT_ASSIGN_OR_RETURN(plan.unpacked_b,
                          UnpackWeights(*options.prepacked_b,
                                        dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                                                           DenseStrides(dims))));
  }
  return plan;
}

Status MatMul(const MatMulPlan& plan, const void* a, const void* b, void* y,
              std::span<std::byte> scratchpad, const void* bias) {
  const int64_t batch = static_cast<int64_t>(plan.a_offsets.size());
  const int64_t mn = plan.m * plan.n;
  if (batch * mn == 0) return Status::Ok();
  if (plan.unpacked_b != nullptr) b = plan.unpacked_b->data();
  if (plan.column_units > 0) {
    MatMulColumnUnits(plan, a, b, bias, y, 0, plan.column_units);
    return Status::Ok();
  }
  if (plan.dnnl != nullptr) {
    const DnnlMatMulPrimitive& p = *plan.dnnl;
    if (!p.per_batch) {
      return ExecuteDnnl(p, plan.bindings, a, b, bias, y, scratchpad, "MatMul");
    }
    for (int64_t i = 0; i < batch; ++i) {
      NXRT_RETURN_IF_ERROR(ExecuteDnnl(p, plan.bindings,
                                       static_cast<const float*>(a) + plan.a_offsets[i],
                                       static_cast<const float*>(b) + plan.b_offsets[i], bias,
                                       static_cast<float*>(y) + i * mn, scratchpad, "MatMul"));
    }
    return Status::Ok();
  }
  return math::DispatchType<MatMulTypes>(plan.dtype, "MatMul", [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    std::vector<RefAcc<T>> row;
    for (int64_t i = 0; i < batch; ++i) {
      T* yi = static_cast<T*>(y) + i * mn;
      MatMulRef(static_cast<const T*>(a) + plan.a_offsets[i], plan.k, 1,
                static_cast<const T*>(b) + plan.b_offsets[i], plan.n, 1, yi, plan.m, plan.n,
                plan.k, row);
      EpilogueRef(plan.epilogue, static_cast<const T*>(bias), yi, plan.m, plan.n);
    }
    return Status::Ok();
  });
}

Result<GemmPlan> PrepareGemm(DataType dtype, std::span<const int64_t> a_shape,
                             std::span<const int64_t> b_shape,
                             std::optional<std::span<const int64_t>> c_shape,
                             const GemmAttributes& attributes, const GemmOptions& options) {
  NXRT_RETURN_IF_ERROR(math::DispatchType<MatMulTypes>(dtype, "Gemm", [](auto) {}));
  const MatMulEpilogue& epilogue = options.epilogue;
  if (epilogue.bias) {
    return MakeStatus(StatusCode::kUnsupported, "Gemm: the epilogue takes no bias (C is Gemm's)");
  }
  if (epilogue.activation != MatMulActivation::kNone && dtype != DataType::kFloat &&
      dtype != DataType::kDouble && dtype != DataType::kFloat16 && dtype != DataType::kBFloat16) {
    return MakeStatus(StatusCode::kUnsupported, "Gemm: an activation epilogue needs a float ",
                      "type, got ", DataTypeName(dtype));
  }
  if (a_shape.size() != 2 || b_shape.size() != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "Gemm: A ", Str(a_shape), " and B ",
                      Str(b_shape), " must both have rank 2");
  }
  NXRT_RETURN_IF_ERROR(CheckShape("Gemm", "input A", a_shape));
  NXRT_RETURN_IF_ERROR(CheckShape("Gemm", "input B", b_shape));
  GemmPlan plan;
  plan.dtype = dtype;
  plan.attributes = attributes;
  plan.epilogue = epilogue;
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
  using dt = dnnl::memory::data_type;
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  DnnlMatMulSpec spec;
  spec.src_md = dnnl::memory::desc({m, k}, dt::f32,
                                   attributes.trans_a ? Dims({1, m}) : Dims({k, 1}));
  spec.weights_md = dnnl::memory::desc({k, n}, dt::f32,
                                       attributes.trans_b ? Dims({1, k}) : Dims({n, 1}));
  spec.dst_md = dnnl::memory::desc({m, n}, dt::f32, Dims({n, 1}));
  spec.constant_weights = options.constant_b;
  spec.prepacked = options.prepacked_b;
  spec.alpha = attributes.alpha;
  spec.epilogue = epilogue;
  spec.threads = DnnlThreadsFor(m * n * k, options.threads);
  if (plan.has_c && attributes.beta != 0.0f) {
    // A C row [N] with unit scales is oneDNN's bias; otherwise Compute writes C (broadcast) into
    // Y first and the sum post-op adds beta times it.
    plan.c_as_bias = attributes.alpha == 1.0f && attributes.beta == 1.0f &&
                     plan.c_strides[0] == 0 && (plan.c_strides[1] == 1 || n == 1);
    spec.bias = plan.c_as_bias;
    if (!plan.c_as_bias) spec.sum_beta = attributes.beta;
  }
  std::shared_ptr<DnnlMatMulPrimitive> prim = CreateDnnlPrimitive(spec);
  if (prim == nullptr) {
    plan.c_as_bias = false;
    if (options.constant_b == nullptr && options.prepacked_b != nullptr) {
      NXRT_ASSIGN_OR_RETURN(plan.unpacked_b, UnpackWeights(*options.prepacked_b, spec.weights_md));
    }
    return plan;
  }
  plan.packed_b = prim->packed;
  plan.bindings = MakeBindings(*prim);
  plan.scratchpad_bytes = prim->scratchpad_md.get_size();
  const bool c_added = plan.has_c && attributes.beta != 0.0f;
  if (attributes.alpha == 1.0f && (!c_added || plan.c_as_bias)) {
    plan.column_units = ColumnUnits(*prim, m, n);
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
        out = FromAcc<T>(static_cast<A>(ActivateEpilogue(static_cast<double>(v), plan.epilogue)));
      }
    }
  }
}

}  // namespace

void MatMulColumnUnits(const MatMulPlan& plan, const void* a, const void* b, const void* bias,
                       void* y, int64_t begin, int64_t end) {
  if (plan.column_units == 0) return;
  const float* bias_f = plan.epilogue.bias ? static_cast<const float*>(bias) : nullptr;
  if (plan.column_units_read_b) {
    // Unit u: batch u / per_batch, columns of unit u % per_batch; a run of units within one
    // batch is one call.
    const int64_t per_batch = (plan.n + kColumnUnit - 1) / kColumnUnit;
    const int64_t mn = plan.m * plan.n;
    begin = std::clamp<int64_t>(begin, 0, plan.column_units);
    end = std::clamp<int64_t>(end, begin, plan.column_units);
    for (int64_t u = begin; u < end;) {
      const int64_t i = u / per_batch, c0 = u % per_batch;
      const int64_t c1 = std::min(per_batch, c0 + (end - u));
      const SgemmB bi{static_cast<const float*>(b) + plan.b_offsets[i], kSgemmPanel, plan.n};
      RunSgemmColumns(bi, plan.epilogue, static_cast<const float*>(a) + plan.a_offsets[i], bias_f,
                      static_cast<float*>(y) + i * mn, plan.m, plan.k, plan.n, c0 * kColumnUnit,
                      std::min(plan.n, c1 * kColumnUnit));
      u += c1 - c0;
    }
    return;
  }
  // The batches of A are folded into M (one B for all).
  const int64_t rows = static_cast<int64_t>(plan.a_offsets.size()) * plan.m;
  RunColumns(*plan.dnnl, plan.epilogue, static_cast<const float*>(a) + plan.a_offsets[0], bias_f,
             static_cast<float*>(y), rows, plan.k, plan.n, plan.column_units, begin, end);
}

void GemmColumnUnits(const GemmPlan& plan, const void* a, const void* c, void* y, int64_t begin,
                     int64_t end) {
  if (plan.column_units == 0) return;
  RunColumns(*plan.dnnl, plan.epilogue, static_cast<const float*>(a),
             plan.c_as_bias ? static_cast<const float*>(c) : nullptr, static_cast<float*>(y),
             plan.m, plan.k, plan.n, plan.column_units, begin, end);
}

Status Gemm(const GemmPlan& plan, const void* a, const void* b, const void* c, void* y,
            std::span<std::byte> scratchpad) {
  if (plan.m * plan.n == 0) return Status::Ok();
  if (plan.unpacked_b != nullptr) b = plan.unpacked_b->data();
  if (plan.dnnl != nullptr) {
    if (plan.column_units > 0) {
      GemmColumnUnits(plan, a, c, y, 0, plan.column_units);
      return Status::Ok();
    }
    if (plan.has_c && plan.attributes.beta != 0.0f && !plan.c_as_bias) {
      const int64_t out_strides[] = {plan.n, 1};
      StridedCopy(plan.dtype, plan.output_shape, c, plan.c_strides, y, out_strides);
    }
    return ExecuteDnnl(*plan.dnnl, plan.bindings, a, b, plan.c_as_bias ? c : nullptr, y,
                       scratchpad, "Gemm");
  }
  return math::DispatchType<MatMulTypes>(plan.dtype, "Gemm", [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    GemmRef<T>(plan, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(c),
               static_cast<T*>(y));
    return Status::Ok();
  });
}

}  // namespace nxrt::cpu::nn
