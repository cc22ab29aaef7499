// ep/cpu/math/nn/conv.cpp: Conv and ConvTranspose (oneDNN for float, reference loops otherwise).
// Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/conv.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ep/cpu/math/nn/conv_transpose_gemm.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn/dnnl_util.h"
#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

struct DnnlConvPrimitive {
  dnnl::primitive primitive;
  std::string impl;  // oneDNN's name of the primitive's implementation
  // The tensors' plain (ONNX) layouts, and the primitive's own where they differ (has_*_reorder).
  dnnl::memory::desc src_md, weights_md, bias_md, dst_md;
  dnnl::memory::desc conv_src_md, conv_weights_md, conv_dst_md;
  dnnl::reorder src_reorder, weights_reorder, dst_reorder, sum_reorder;
  bool has_src_reorder = false, has_weights_reorder = false, has_dst_reorder = false;
  // Scratchpads are per call (user mode, in the workspace): oneDNN's primitive cache may hand two
  // kernels the same primitive, and a library-owned scratchpad is not safe under concurrent
  // execution. One region serves the primitive and its reorders, which run one after another.
  dnnl::memory::desc scratchpad_md, src_reorder_scratchpad_md, weights_reorder_scratchpad_md,
      dst_reorder_scratchpad_md, sum_reorder_scratchpad_md;
  // Workspace layout: [scratchpad | blocked X | blocked Y | blocked W (unless packed)].
  size_t src_offset = 0, dst_offset = 0, weights_offset = 0, weights_bytes = 0;
  // Relu, Clip and HardSigmoid (and the affine after them) run after the primitive, keeping NaN
  // (dnnl_util.h ClampKeepingNaN); unset for the other activations, which are post-ops.
  std::optional<ClampKeepingNaN> clamp_after;
};

struct PackedConvWeights {
  struct Free {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<std::byte[], Free> data;
};

struct ConvBindings::Impl {
  // Plain X, W, B, Y and Z (sum); blocked X, W, Y; one scratchpad per primitive.
  dnnl::memory x, w, b, y, z, x_blocked, w_blocked, y_blocked;
  dnnl::memory scratch, src_scratch, weights_scratch, dst_scratch, sum_scratch;
};

ConvBindings::ConvBindings() = default;
ConvBindings::~ConvBindings() = default;
ConvBindings::ConvBindings(ConvBindings&&) noexcept = default;
ConvBindings& ConvBindings::operator=(ConvBindings&&) noexcept = default;
ConvBindings::ConvBindings(const ConvBindings& other) { *this = other; }
ConvBindings& ConvBindings::operator=(const ConvBindings& other) {
  if (this == &other) return *this;
  impl.reset();
  Result<dnnl::engine> engine = DnnlEngine();
  if (other.impl == nullptr || !engine.ok()) return *this;
  // Plans are copied at Prepare time (returned by value), not per call.
  const Impl& o = *other.impl;
  impl = std::make_unique<Impl>(
      Impl{Rebind(o.x, *engine), Rebind(o.w, *engine), Rebind(o.b, *engine),
           Rebind(o.y, *engine), Rebind(o.z, *engine), Rebind(o.x_blocked, *engine),
           Rebind(o.w_blocked, *engine), Rebind(o.y_blocked, *engine),
           Rebind(o.scratch, *engine), Rebind(o.src_scratch, *engine),
           Rebind(o.weights_scratch, *engine), Rebind(o.dst_scratch, *engine),
           Rebind(o.sum_scratch, *engine)});
  return *this;
}

namespace {

using dt = dnnl::memory::data_type;

// Conv and ConvTranspose take the float types without bfloat16.
Status CheckConvType(std::string_view op, DataType dtype) {
  return math::DispatchType<math::FloatTypes>(dtype, op, [](auto) {});
}

// Shared checks of X, W, B and the kernel shape; fills batch, channels, group, input_spatial and
// the kernel (from W when kernel_shape is absent).
Status CheckConvShapes(std::string_view op, bool transpose, std::span<const int64_t> x_shape,
                       std::span<const int64_t> w_shape,
                       std::optional<std::span<const int64_t>> b_shape,
                       const ConvAttributes& attributes, ConvPlan& plan,
                       std::vector<int64_t>& kernel) {
  NXRT_RETURN_IF_ERROR(CheckConvType(op, plan.dtype));
  NXRT_RETURN_IF_ERROR(CheckShape(op, "input X", x_shape));
  NXRT_RETURN_IF_ERROR(CheckShape(op, "weights W", w_shape));
  if (x_shape.size() < 3 || w_shape.size() != x_shape.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape), " and W ",
                      Str(w_shape), " need the same rank >= 3 ([N, C, spatial...])");
  }
  const int64_t g = attributes.group;
  if (g < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": group is ", g, ", expected >= 1");
  }
  plan.batch = x_shape[0];
  plan.in_channels = x_shape[1];
  plan.group = g;
  if (!transpose) {
    plan.out_channels = w_shape[0];
    if (x_shape[1] != w_shape[1] * g || w_shape[0] % g != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape), " has ", x_shape[1],
                        " channels and W ", Str(w_shape),
                        " expects C = W[1] * group = ", w_shape[1] * g,
                        " with W[0] divisible by group ", g);
    }
  } else {
    plan.out_channels = w_shape[1] * g;
    if (x_shape[1] != w_shape[0] || w_shape[0] % g != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape), " has ", x_shape[1],
                        " channels but W ", Str(w_shape), " has W[0] = ", w_shape[0],
                        " (must equal C and be divisible by group ", g, ")");
    }
  }
  kernel.assign(w_shape.begin() + 2, w_shape.end());
  if (!attributes.kernel_shape.empty() &&
      !std::equal(kernel.begin(), kernel.end(), attributes.kernel_shape.begin(),
                  attributes.kernel_shape.end())) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": kernel_shape ",
                      Str(attributes.kernel_shape), " differs from the spatial dims of W ",
                      Str(w_shape));
  }
  plan.has_bias = b_shape.has_value();
  if (plan.has_bias && (b_shape->size() != 1 || (*b_shape)[0] != plan.out_channels)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": bias B ", Str(*b_shape),
                      " must have shape [", plan.out_channels, "] for W ", Str(w_shape));
  }
  plan.input_spatial.assign(x_shape.begin() + 2, x_shape.end());
  return Status::Ok();
}

dnnl::memory::dims ToDims(std::span<const int64_t> v) {
  return dnnl::memory::dims(v.begin(), v.end());
}

// Element strides of a tensor of logical dims [N, C, H, W]: stored as such, or as [N, H, W, C].
std::array<int64_t, 4> NchwStrides(std::span<const int64_t> d) {
  return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
}
std::array<int64_t, 4> NhwcStrides(std::span<const int64_t> d) {
  return {d[2] * d[3] * d[1], 1, d[3] * d[1], d[1]};
}

// The logical [N, C, spatial...] dims of a plan's input and output, whatever their layout.
Shape SourceDims(const ConvPlan& plan) {
  Shape dims = {plan.batch, plan.in_channels};
  dims.insert(dims.end(), plan.input_spatial.begin(), plan.input_spatial.end());
  return dims;
}
Shape DestinationDims(const ConvPlan& plan) {
  Shape dims = {plan.batch, plan.out_channels};
  dims.insert(dims.end(), plan.geometry.output.begin(), plan.geometry.output.end());
  return dims;
}

// True for oneDNN's reference implementations ("ref:any", "ref_convolution"...): plain loops,
// tens of times slower than its JIT kernels.
bool IsReferenceImpl(const char* impl) { return std::string_view(impl).starts_with("ref"); }

// A JIT kernel that convolves directly ("jit_dw:avx2", "brgconv:avx512_core", ...), not oneDNN's
// im2col + GEMM ("gemm:jit") or reference code.
bool IsDirectJitImpl(const char* impl) {
  const std::string_view name(impl);
  return (name.starts_with("jit") || name.starts_with("brg")) &&
         name.find("gemm") == std::string_view::npos;
}

// Whether a plan tries oneDNN's Winograd convolution first (ConvOptions::constant_weights). It
// takes F(2x2, 3x3) or F(4x4, 3x3) tiles on blocked tensors; with the reorders from and to the
// tensors' layout it is faster than the direct kernels from 64 channels on (AVX-512, per call on
// ResNet-18's 3x3 layers at 1 and 2 threads: 64x56x56 1.16 -> 0.64 and 0.60 -> 0.43 ms, 512x7x7
// 1.14 -> 0.94 and 0.51 -> 0.45 ms), while 16 or 32 channels lose the gain to the reorders.
bool TryWinograd(const ConvPlan& plan, bool constant_weights) {
  const WindowGeometry& geo = plan.geometry;
  const auto all_one = [](std::span<const int64_t> v) {
    return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
  };
  constexpr int64_t kMinChannels = 64;
  return constant_weights && !plan.transpose && plan.group == 1 && geo.kernel.size() == 2 &&
         geo.kernel[0] == 3 && geo.kernel[1] == 3 && all_one(geo.strides) &&
         all_one(geo.dilations) && plan.in_channels >= kMinChannels &&
         plan.out_channels >= kMinChannels;
}

// Creates the oneDNN primitive of a float plan, or leaves plan.dnnl null when oneDNN declines.
void CreateDnnlConv(ConvPlan& plan, bool constant_weights) {
  const size_t nsp = plan.input_spatial.size();
  if (plan.dtype != DataType::kFloat || nsp < 1 || nsp > 3) return;
  if (Product(plan.output_shape) == 0 || Product(plan.input_spatial) == 0 || plan.batch == 0) {
    return;
  }
  Result<dnnl::engine> engine = DnnlEngine();
  if (!engine.ok()) return;
  const WindowGeometry& geo = plan.geometry;
  const int64_t g = plan.group, cg = plan.in_channels / g, mg = plan.out_channels / g;
  const int64_t ksize = Product(geo.kernel);
  std::vector<int64_t> kstrides = ContiguousStrides(geo.kernel);
  // Weights: oneDNN's logical dims are [G,] OC, IC, k...; the strides give ONNX's layout.
  std::vector<int64_t> wdims, wstrides;
  if (g > 1) {
    wdims.push_back(g);
    wstrides.push_back(cg * mg * ksize);
  }
  wdims.push_back(g > 1 ? mg : plan.out_channels);
  wdims.push_back(g > 1 ? cg : plan.in_channels);
  if (!plan.transpose) {
    wstrides.push_back(cg * ksize);
    wstrides.push_back(ksize);
  } else {
    wstrides.push_back(ksize);
    wstrides.push_back(mg * ksize);
  }
  wdims.insert(wdims.end(), geo.kernel.begin(), geo.kernel.end());
  wstrides.insert(wstrides.end(), kstrides.begin(), kstrides.end());

  const Shape src_dims = SourceDims(plan), dst_dims = DestinationDims(plan);
  // The tensors' own strides: ONNX's contiguous [N, C, spatial...], or NHWC for channels_last.
  const auto plain_strides = [&](const Shape& dims) {
    if (!plan.channels_last) return ToDims(ContiguousStrides(dims));
    const std::array<int64_t, 4> strides = NhwcStrides(dims);
    return ToDims(strides);
  };
  std::vector<int64_t> dilates, pad_r;
  for (size_t i = 0; i < nsp; ++i) {
    dilates.push_back(geo.dilations[i] - 1);
    const int64_t dk = (geo.kernel[i] - 1) * geo.dilations[i] + 1;
    // oneDNN derives the output from the pads: give it the end pad that yields our output.
    pad_r.push_back(plan.transpose ? (plan.input_spatial[i] - 1) * geo.strides[i] + dk -
                                         geo.pads_begin[i] - geo.output[i]
                                   : geo.pads_end[i]);
  }
  // Multiply-adds: output elements times the taps and input channels each reads.
  const std::array<int64_t, 3> work = {Product(plan.output_shape), ksize, cg};  // saturating
  plan.threads = DnnlThreadsFor(Product(work), plan.threads);
  SetDnnlThreads(plan.threads);
  dnnl::post_ops post_ops;
  const ConvPostOps& po = plan.post_ops;
  if (po.sum) post_ops.append_sum(1.0f);
  using alg = dnnl::algorithm;
  std::optional<ClampKeepingNaN> clamp_after;
  const float inf = std::numeric_limits<float>::infinity();
  switch (po.activation) {
    case ConvActivation::kNone:
      break;
    case ConvActivation::kRelu:
      clamp_after = ClampKeepingNaN{1.0f, 0.0f, 0.0f, inf};
      break;
    case ConvActivation::kLeakyRelu:
      post_ops.append_eltwise(1.0f, alg::eltwise_relu, po.alpha, 0.0f);
      break;
    case ConvActivation::kClip:
      clamp_after = ClampKeepingNaN{1.0f, 0.0f, po.alpha, po.beta};
      break;
    case ConvActivation::kHardSigmoid:
      clamp_after = ClampKeepingNaN{po.alpha, po.beta, 0.0f, 1.0f};
      break;
    case ConvActivation::kSigmoid:
      post_ops.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
      break;
    case ConvActivation::kTanh:
      post_ops.append_eltwise(1.0f, alg::eltwise_tanh, 0.0f, 0.0f);
      break;
    case ConvActivation::kHardSwish:
      // oneDNN 2.6: x * relu6(x + 3) / 6, no parameters.
      post_ops.append_eltwise(1.0f, alg::eltwise_hardswish, 0.0f, 0.0f);
      break;
    case ConvActivation::kSwish:
      // oneDNN: x * sigmoid(alpha * x).
      post_ops.append_eltwise(1.0f, alg::eltwise_swish, po.alpha, 0.0f);
      break;
  }
  if (clamp_after) {
    clamp_after->out_scale = po.output_scale;
    clamp_after->out_shift = po.output_shift;
  } else if (po.has_output_affine()) {
    post_ops.append_eltwise(1.0f, alg::eltwise_linear, po.output_scale, po.output_shift);
  }
  const auto any = dnnl::memory::format_tag::any;
  // Blocked layouts first (oneDNN's direct JIT kernels; the plain layout falls back to im2col +
  // GEMM, several times slower), then the plain layouts, then the reference loops. A pointwise
  // convolution (1x1, stride 1, no pads, one group) is a plain GEMM without im2col: as fast as
  // the blocked kernel and it saves the two reorders (measured on PP-OCRv4 rec: reorders 4 ms ->
  // 2 ms per run, convolution time unchanged).
  bool pointwise = plan.group == 1;
  for (size_t i = 0; i < nsp; ++i) {
    pointwise = pointwise && geo.kernel[i] == 1 && geo.strides[i] == 1 && geo.pads_begin[i] == 0 &&
                geo.pads_end[i] == 0;
  }
  // oneDNN 2.6's GEMM convolution applies eltwise post-ops element by element outside its JIT
  // code (measured on PP-OCRv4 det: a 1x1 convolution with HardSwish 292 ms instead of ~1 ms), so
  // with an activation the blocked kernels come first for pointwise convolutions too.
  // A transposed convolution to a few output channels: the blocked layout pads them to 16 (16x
  // the work and a 16x larger output reorder; PP-OCRv4 det's 24 -> 1 upsampling took 3 ms), so
  // the plain layout comes first there.
  // Channels-last tensors are the layout oneDNN's own choice reads (brgconv and brdgmm_dw on
  // AVX-512 pick NHWC), while its plain-layout pointwise convolution in NHWC is the reference
  // implementation (PP-OCRv4 det: 150 ms instead of 1 ms), so there oneDNN's choice comes first.
  const bool few_outputs = plan.transpose && plan.out_channels < 8;
  const bool eltwise_post_ops = post_ops.len() > (po.sum ? 1 : 0);
  const bool plain_first =
      !plan.channels_last && (pointwise || few_outputs) && !eltwise_post_ops;
  // A grouped convolution on NCHW tensors: oneDNN's choice is its GEMM convolution, one small
  // GEMM per group (Silero VAD v4's 1-D depthwise over 258 channels: 52 us), while its
  // channels-last depthwise kernel takes 8 us; the reorders of such small tensors cost little.
  // So channels-last primitive tensors come first there, reordered from and to the NCHW ones.
  // Winograd (TryWinograd) comes before all of these, on the blocked layouts oneDNN chooses.
  // Channels-last tensors where oneDNN's own choice is blocked (AVX2: nChw8c) are reordered in
  // and out; its depthwise, grouped and 1x1 kernels read and write NHWC as fast as blocked ones
  // (oneDNN 2.6, AVX2, one thread: depthwise 3x3 128 channels at 56x56 0.25 ms NHWC against 0.29
  // ms blocked, 4 groups 64 channels 1.06 against 1.09 ms, 1x1 256 channels at 28x28 1.47
  // against 1.54 ms, before the reorders), so those get the tensors first, kept only when a
  // direct JIT kernel takes them.
  const bool nhwc_tensors_first = plan.channels_last && (plan.group > 1 || pointwise);
  enum class Layout { kWinograd, kChosen, kTensors, kChannelsLast };
  std::vector<Layout> options;
  if (nhwc_tensors_first) options.push_back(Layout::kChannelsLast);
  if (TryWinograd(plan, constant_weights)) options.push_back(Layout::kWinograd);
  if (plan.group > 1 && !plan.transpose && !plan.channels_last && nsp >= 1 && nsp <= 3) {
    options.push_back(Layout::kChannelsLast);
  }
  // Then the preferred layout and the other one; oneDNN's reference implementation only when
  // every layout gives it.
  options.push_back(plain_first ? Layout::kTensors : Layout::kChosen);
  options.push_back(plain_first ? Layout::kChosen : Layout::kTensors);
  const dnnl::memory::format_tag channels_last_tag = nsp == 1   ? dnnl::memory::format_tag::nwc
                                                     : nsp == 2 ? dnnl::memory::format_tag::nhwc
                                                                : dnnl::memory::format_tag::ndhwc;
  for (size_t option = 0; option < options.size(); ++option) {
    const Layout layout = options[option];
    auto prim = std::make_shared<DnnlConvPrimitive>();
    prim->clamp_after = clamp_after;
    try {
      prim->src_md = dnnl::memory::desc(ToDims(src_dims), dt::f32, plain_strides(src_dims));
      prim->weights_md = dnnl::memory::desc(ToDims(wdims), dt::f32, ToDims(wstrides));
      prim->bias_md = dnnl::memory::desc({plan.out_channels}, dt::f32, {1});
      prim->dst_md = dnnl::memory::desc(ToDims(dst_dims), dt::f32, plain_strides(dst_dims));
      auto activation_md = [&](const Shape& dims, const dnnl::memory::desc& tensors) {
        switch (layout) {
          case Layout::kWinograd:
          case Layout::kChosen: return dnnl::memory::desc(ToDims(dims), dt::f32, any);
          case Layout::kTensors: return tensors;
          case Layout::kChannelsLast:
            return dnnl::memory::desc(ToDims(dims), dt::f32, channels_last_tag);
        }
        return tensors;
      };
      const dnnl::memory::desc src_md = activation_md(src_dims, prim->src_md);
      const dnnl::memory::desc weights_md =
          layout != Layout::kTensors ? dnnl::memory::desc(ToDims(wdims), dt::f32, any)
                                     : prim->weights_md;
      const dnnl::memory::desc dst_md = activation_md(dst_dims, prim->dst_md);
      const dnnl::memory::desc no_bias;
      const dnnl::memory::desc& bias = plan.has_bias ? prim->bias_md : no_bias;
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      attr.set_post_ops(post_ops);
      if (!plan.transpose) {
        const dnnl::algorithm algorithm = layout == Layout::kWinograd
                                              ? dnnl::algorithm::convolution_winograd
                                              : dnnl::algorithm::convolution_direct;
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, algorithm, src_md,
            weights_md, bias, dst_md, ToDims(geo.strides), ToDims(dilates),
            ToDims(geo.pads_begin), ToDims(pad_r));
        dnnl::convolution_forward::primitive_desc pd(desc, attr, *engine);
        if (option + 1 < options.size() && IsReferenceImpl(pd.impl_info_str())) continue;
        if (option == 0 && nhwc_tensors_first && !IsDirectJitImpl(pd.impl_info_str())) continue;
        prim->impl = pd.impl_info_str();
        prim->scratchpad_md = pd.scratchpad_desc();
        prim->conv_src_md = pd.src_desc();
        prim->conv_weights_md = pd.weights_desc();
        prim->conv_dst_md = pd.dst_desc();
        prim->primitive = dnnl::convolution_forward(pd);
      } else {
        dnnl::deconvolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src_md,
            weights_md, bias, dst_md, ToDims(geo.strides), ToDims(dilates),
            ToDims(geo.pads_begin), ToDims(pad_r));
        dnnl::deconvolution_forward::primitive_desc pd(desc, attr, *engine);
        if (option + 1 < options.size() && IsReferenceImpl(pd.impl_info_str())) continue;
        prim->impl = pd.impl_info_str();
        prim->scratchpad_md = pd.scratchpad_desc();
        prim->conv_src_md = pd.src_desc();
        prim->conv_weights_md = pd.weights_desc();
        prim->conv_dst_md = pd.dst_desc();
        prim->primitive = dnnl::deconvolution_forward(pd);
      }
      dnnl::primitive_attr reorder_attr;
      reorder_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      auto make_reorder = [&](const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                              dnnl::reorder& reorder, dnnl::memory::desc& scratchpad) {
        dnnl::reorder::primitive_desc pd(*engine, from, *engine, to, reorder_attr);
        scratchpad = pd.scratchpad_desc();
        reorder = dnnl::reorder(pd);
      };
      size_t scratch = prim->scratchpad_md.get_size();
      prim->has_src_reorder = prim->conv_src_md != prim->src_md;
      prim->has_weights_reorder = prim->conv_weights_md != prim->weights_md;
      prim->has_dst_reorder = prim->conv_dst_md != prim->dst_md;
      if (prim->has_src_reorder) {
        make_reorder(prim->src_md, prim->conv_src_md, prim->src_reorder,
                     prim->src_reorder_scratchpad_md);
        scratch = std::max(scratch, prim->src_reorder_scratchpad_md.get_size());
      }
      if (prim->has_weights_reorder) {
        make_reorder(prim->weights_md, prim->conv_weights_md, prim->weights_reorder,
                     prim->weights_reorder_scratchpad_md);
        scratch = std::max(scratch, prim->weights_reorder_scratchpad_md.get_size());
      }
      if (prim->has_dst_reorder) {
        make_reorder(prim->conv_dst_md, prim->dst_md, prim->dst_reorder,
                     prim->dst_reorder_scratchpad_md);
        scratch = std::max(scratch, prim->dst_reorder_scratchpad_md.get_size());
        if (plan.post_ops.sum) {
          make_reorder(prim->dst_md, prim->conv_dst_md, prim->sum_reorder,
                       prim->sum_reorder_scratchpad_md);
          scratch = std::max(scratch, prim->sum_reorder_scratchpad_md.get_size());
        }
      }
      prim->src_offset = Align64(scratch);
      prim->dst_offset =
          prim->src_offset + (prim->has_src_reorder ? Align64(prim->conv_src_md.get_size()) : 0);
      prim->weights_offset =
          prim->dst_offset + (prim->has_dst_reorder ? Align64(prim->conv_dst_md.get_size()) : 0);
      prim->weights_bytes =
          prim->has_weights_reorder ? Align64(prim->conv_weights_md.get_size()) : 0;
    } catch (const dnnl::error&) {
      continue;
    }
    try {
      auto b = std::make_unique<ConvBindings::Impl>();
      auto unbound = [&](const dnnl::memory::desc& md) {
        return dnnl::memory(md, *engine, DNNL_MEMORY_NONE);
      };
      auto scratch = [&](const dnnl::memory::desc& md) {
        return md.get_size() > 0 ? unbound(md) : dnnl::memory();
      };
      b->x = unbound(prim->src_md);
      b->w = unbound(prim->weights_md);
      b->y = unbound(prim->dst_md);
      if (plan.has_bias) b->b = unbound(prim->bias_md);
      if (plan.post_ops.sum) b->z = unbound(prim->dst_md);
      if (prim->has_src_reorder) b->x_blocked = unbound(prim->conv_src_md);
      if (prim->has_weights_reorder) b->w_blocked = unbound(prim->conv_weights_md);
      if (prim->has_dst_reorder) b->y_blocked = unbound(prim->conv_dst_md);
      b->scratch = scratch(prim->scratchpad_md);
      b->src_scratch = scratch(prim->src_reorder_scratchpad_md);
      b->weights_scratch = scratch(prim->weights_reorder_scratchpad_md);
      b->dst_scratch = scratch(prim->dst_reorder_scratchpad_md);
      b->sum_scratch = scratch(prim->sum_reorder_scratchpad_md);
      plan.bindings.impl = std::move(b);
    } catch (const dnnl::error&) {
      continue;
    }
    plan.workspace_bytes = prim->weights_offset + prim->weights_bytes;
    plan.dnnl = std::move(prim);
    return;
  }
}

double ActivatePostOps(double v, const ConvPostOps& po) {
  switch (po.activation) {
    case ConvActivation::kNone:
      return v;
    case ConvActivation::kRelu:
      return v < 0 ? 0.0 : v;  // NaN stays NaN
    case ConvActivation::kLeakyRelu:
      return v > 0 ? v : v * po.alpha;
    case ConvActivation::kClip:
      return std::min<double>(std::max<double>(v, po.alpha), po.beta);
    case ConvActivation::kHardSigmoid:
      return std::isnan(v) ? v : std::min(1.0, std::max(0.0, po.alpha * v + po.beta));
    case ConvActivation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-v));
    case ConvActivation::kTanh:
      return std::tanh(v);
    case ConvActivation::kHardSwish:
      return v * std::min(1.0, std::max(0.0, v / 6.0 + 0.5));
    case ConvActivation::kSwish:
      return v / (1.0 + std::exp(-po.alpha * v));
  }
  return v;
}

// For spatial dim d: the input coordinate that output coordinate o reads through kernel tap k,
// or -1 when it falls into padding (Conv) or between strides (ConvTranspose).
int64_t TapCoordinate(const ConvPlan& plan, size_t d, int64_t o, int64_t k) {
  const WindowGeometry& geo = plan.geometry;
  const int64_t in = plan.input_spatial[d];
  if (!plan.transpose) {
    const int64_t c = o * geo.strides[d] - geo.pads_begin[d] + k * geo.dilations[d];
    return c >= 0 && c < in ? c : -1;
  }
  const int64_t num = o + geo.pads_begin[d] - k * geo.dilations[d];
  if (num < 0 || num % geo.strides[d] != 0 || num / geo.strides[d] >= in) return -1;
  return num / geo.strides[d];
}

template <typename T>
void ConvRef(const ConvPlan& plan, const T* x, const T* w, const T* b, const T* z, T* y) {
  const WindowGeometry& geo = plan.geometry;
  const size_t nsp = plan.input_spatial.size();
  const int64_t in_size = Product(plan.input_spatial);
  const int64_t out_size = Product(geo.output);
  const int64_t ksize = Product(geo.kernel);
  const int64_t g = plan.group, cg = plan.in_channels / g, mg = plan.out_channels / g;
  const std::vector<int64_t> in_strides = ContiguousStrides(plan.input_spatial);
  std::vector<int64_t> o(nsp), k(nsp);
  for (int64_t n = 0; n < plan.batch; ++n) {
    for (int64_t m = 0; m < plan.out_channels; ++m) {
      const int64_t gi = m / mg, ml = m % mg;
      const T* xg = x + (n * plan.in_channels + gi * cg) * in_size;
      T* ym = y + (n * plan.out_channels + m) * out_size;
      std::fill(o.begin(), o.end(), 0);
      for (int64_t oi = 0; oi < out_size; ++oi) {
        double acc = plan.has_bias ? static_cast<double>(ToAcc(b[m])) : 0.0;
        std::fill(k.begin(), k.end(), 0);
        for (int64_t ki = 0; ki < ksize; ++ki) {
          int64_t off = 0;
          bool valid = true;
          for (size_t d = 0; d < nsp && valid; ++d) {
            const int64_t c = TapCoordinate(plan, d, o[d], k[d]);
            valid = c >= 0;
            off += c * in_strides[d];
          }
          if (valid) {
            for (int64_t c = 0; c < cg; ++c) {
              const int64_t wi = plan.transpose ? ((gi * cg + c) * mg + ml) * ksize + ki
                                                : (m * cg + c) * ksize + ki;
              acc += static_cast<double>(ToAcc(xg[c * in_size + off])) *
                     static_cast<double>(ToAcc(w[wi]));
            }
          }
          for (size_t d = nsp; d-- > 0;) {
            if (++k[d] < geo.kernel[d]) break;
            k[d] = 0;
          }
        }
        // Z is read at the index written, so it may alias Y.
        if (plan.post_ops.sum) acc += static_cast<double>(ToAcc(z[ym - y + oi]));
        ym[oi] = FromAcc<T>(ActivatePostOps(acc, plan.post_ops) * plan.post_ops.output_scale +
                            plan.post_ops.output_shift);
        for (size_t d = nsp; d-- > 0;) {
          if (++o[d] < geo.output[d]) break;
          o[d] = 0;
        }
      }
    }
  }
}

}  // namespace

Result<ConvPlan> PrepareConv(DataType dtype, std::span<const int64_t> x_shape,
                             std::span<const int64_t> w_shape,
                             std::optional<std::span<const int64_t>> b_shape,
                             const ConvAttributes& attributes, const ConvOptions& options) {
  ConvPlan plan;
  plan.dtype = dtype;
  plan.post_ops = options.post_ops;
  plan.threads = options.threads;
  plan.channels_last = options.channels_last;
  std::string_view op = "Conv";
  Shape x_nchw(x_shape.begin(), x_shape.end());
  if (plan.channels_last) {
    op = "Conv (channels_last)";
    if (x_shape.size() != 4) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x_shape),
                        " must have rank 4 ([N, H, W, C]); channels_last is 2-D only");
    }
    x_nchw = {x_shape[0], x_shape[3], x_shape[1], x_shape[2]};
  }
  std::vector<int64_t> kernel;
  NXRT_RETURN_IF_ERROR(
      CheckConvShapes(op, false, x_nchw, w_shape, b_shape, attributes, plan, kernel));
  WindowAttributes window;
  window.auto_pad = attributes.auto_pad;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.pads;
  NXRT_ASSIGN_OR_RETURN(plan.geometry,
                        ComputeWindowGeometry(op, plan.input_spatial, kernel, window));
  const Shape y = DestinationDims(plan);
  plan.output_shape = plan.channels_last ? Shape{y[0], y[2], y[3], y[1]} : y;
  CreateDnnlConv(plan, options.constant_weights);
  if (plan.channels_last && plan.dnnl == nullptr) {
    // The reference loops run on [N, C, H, W] copies of X and Y (Z is copied into Y's).
    const size_t element = DataTypeSize(dtype);
    plan.workspace_bytes = Align64(Product(x_nchw) * element) +
                           Align64(Product(plan.output_shape) * element);
  }
  return plan;
}

Result<ConvPlan> PrepareConvTranspose(DataType dtype, std::span<const int64_t> x_shape,
                                      std::span<const int64_t> w_shape,
                                      std::optional<std::span<const int64_t>> b_shape,
                                      const ConvAttributes& attributes,
                                      const ConvOptions& options) {
  constexpr std::string_view kOp = "ConvTranspose";
  if (options.channels_last) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp,
                      ": channels_last is supported by Conv only");
  }
  ConvPlan plan;
  plan.dtype = dtype;
  plan.post_ops = options.post_ops;
  plan.threads = options.threads;
  plan.transpose = true;
  std::vector<int64_t> kernel;
  NXRT_RETURN_IF_ERROR(
      CheckConvShapes(kOp, true, x_shape, w_shape, b_shape, attributes, plan, kernel));
  const size_t n = plan.input_spatial.size();
  // Strides, dilations and explicit pads are validated by the window helper; the output side
  // of ConvTranspose is computed here.
  WindowAttributes window;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.auto_pad == AutoPad::kNotSet ? attributes.pads : std::vector<int64_t>{};
  std::vector<int64_t> unit(n, 1);
  NXRT_ASSIGN_OR_RETURN(WindowGeometry geo, ComputeWindowGeometry(kOp, unit, unit, window));
  geo.kernel = kernel;
  std::vector<int64_t> output_padding = attributes.output_padding;
  if (output_padding.empty()) output_padding.assign(n, 0);
  if (output_padding.size() != n) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": output_padding ", Str(output_padding),
                      " has ", output_padding.size(), " entries, expected ", n);
  }
  std::span<const int64_t> requested = attributes.output_shape;
  if (requested.size() == n + 2) requested = requested.subspan(2);
  if (!requested.empty() && requested.size() != n) {
    return MakeStatus(StatusCode::kInvalidArgument, kOp, ": output_shape ",
                      Str(attributes.output_shape), " has ", attributes.output_shape.size(),
                      " entries, expected ", n, " or ", n + 2);
  }
  const bool same =
      attributes.auto_pad == AutoPad::kSameUpper || attributes.auto_pad == AutoPad::kSameLower;
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = plan.input_spatial[i], s = geo.strides[i];
    // The spec: each output_padding value must be less than its stride; ONNX Runtime 1.30
    // refuses a larger one too (the output would not convolve back to X's size).
    if (output_padding[i] < 0 || output_padding[i] >= s) {
      return MakeStatus(StatusCode::kInvalidArgument, kOp, ": output_padding[", i, "] = ",
                        output_padding[i], " must lie in [0, stride ", s, "); output_padding ",
                        Str(output_padding), ", strides ", Str(geo.strides),
                        " (make each output_padding value smaller than its stride)");
    }
    const int64_t dk = (kernel[i] - 1) * geo.dilations[i] + 1;
    const int64_t natural = s * (in - 1) + output_padding[i] + dk;
    if (!requested.empty() || same) {
      const int64_t out = !requested.empty() ? requested[i] : in * s;
      const int64_t total = std::max<int64_t>(0, natural - out);
      const bool upper = attributes.auto_pad == AutoPad::kSameUpper;
      geo.pads_begin[i] = upper ? total / 2 : total - total / 2;
      geo.pads_end[i] = total - geo.pads_begin[i];
      geo.output[i] = out;
    } else {
      geo.output[i] = natural - geo.pads_begin[i] - geo.pads_end[i];
    }
    if (geo.output[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, kOp, ": spatial dim ", i, " of X ",
                        Str(x_shape), " gives a negative output size ", geo.output[i], " (pads ",
                        Str(attributes.pads), ")");
    }
  }
  plan.geometry = std::move(geo);
  plan.output_shape = {plan.batch, plan.out_channels};
  plan.output_shape.insert(plan.output_shape.end(), plan.geometry.output.begin(),
                           plan.geometry.output.end());
  if (UseGemmConvTranspose(plan)) {
    // Multiply-adds: every input element times the output channels and taps of its group.
    const std::array<int64_t, 4> work = {plan.batch * plan.in_channels,
                                         Product(plan.input_spatial),
                                         plan.out_channels / plan.group, Product(kernel)};
    plan.threads = DnnlThreadsFor(Product(work), options.threads);  // saturating
    plan.gemm_col2im = true;
    plan.workspace_bytes = GemmConvTransposeWorkspace(plan);
    return plan;
  }
  CreateDnnlConv(plan, options.constant_weights);
  return plan;
}

Status PackConvWeights(ConvPlan& plan, const void* w) {
  if (plan.dnnl == nullptr || !plan.dnnl->has_weights_reorder || plan.packed_weights != nullptr) {
    return Status::Ok();
  }
  const DnnlConvPrimitive& p = *plan.dnnl;
  NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  auto packed = std::make_shared<PackedConvWeights>();
  packed->data.reset(new (std::align_val_t{64}) std::byte[p.weights_bytes]);
  std::vector<std::byte> scratch(p.weights_reorder_scratchpad_md.get_size());
  try {
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_FROM, dnnl::memory(p.weights_md, engine, const_cast<void*>(w))},
        {DNNL_ARG_TO, dnnl::memory(p.conv_weights_md, engine, packed->data.get())}};
    if (!scratch.empty()) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   dnnl::memory(p.weights_reorder_scratchpad_md, engine, scratch.data()));
    }
    p.weights_reorder.execute(*stream, args);
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus(plan.transpose ? "ConvTranspose weights" : "Conv weights", e);
  }
  plan.bindings.impl->w_blocked.set_data_handle(packed->data.get());
  plan.packed_weights = std::move(packed);
  plan.workspace_bytes = p.weights_offset;
  return Status::Ok();
}

namespace {

// Runs `prim` on up to 5 (argument, memory) pairs and the scratchpad at the workspace start.
void Execute(const dnnl::primitive& prim, dnnl::stream& stream, dnnl::memory& scratch,
             std::byte* workspace, std::initializer_list<std::pair<int, dnnl::memory*>> args) {
  dnnl_exec_arg_t c_args[6];
  int n = 0;
  for (const auto& [arg, memory] : args) c_args[n++] = {arg, memory->get()};
  if (scratch) {
    scratch.set_data_handle(workspace);
    c_args[n++] = {DNNL_ARG_SCRATCHPAD, scratch.get()};
  }
  dnnl::error::wrap_c_api(dnnl_primitive_execute(prim.get(), stream.get(), n, c_args),
                          "could not execute a convolution step");
}

Status RunDnnl(const ConvPlan& plan, const ConvBuffers& io) {
  const DnnlConvPrimitive& p = *plan.dnnl;
  if (plan.bindings.impl == nullptr) {
    return MakeStatus(StatusCode::kInternal, "Conv: the oneDNN plan has no bindings");
  }
  ConvBindings::Impl& m = *plan.bindings.impl;
  NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
  std::byte* ws = io.workspace.data();
  SetDnnlThreads(plan.threads);
  try {
    m.x.set_data_handle(const_cast<void*>(io.x));
    dnnl::memory* src = &m.x;
    if (p.has_src_reorder) {
      m.x_blocked.set_data_handle(ws + p.src_offset);
      Execute(p.src_reorder, *stream, m.src_scratch, ws,
              {{DNNL_ARG_FROM, &m.x}, {DNNL_ARG_TO, &m.x_blocked}});
      src = &m.x_blocked;
    }
    dnnl::memory* weights = &m.w;
    if (plan.packed_weights != nullptr) {
      weights = &m.w_blocked;  // bound to the packed copy by PackConvWeights
    } else {
      m.w.set_data_handle(const_cast<void*>(io.w));
      if (p.has_weights_reorder) {
        m.w_blocked.set_data_handle(ws + p.weights_offset);
        Execute(p.weights_reorder, *stream, m.weights_scratch, ws,
                {{DNNL_ARG_FROM, &m.w}, {DNNL_ARG_TO, &m.w_blocked}});
        weights = &m.w_blocked;
      }
    }
    m.y.set_data_handle(io.y);
    dnnl::memory* dst = &m.y;
    if (p.has_dst_reorder) {
      m.y_blocked.set_data_handle(ws + p.dst_offset);
      dst = &m.y_blocked;
    }
    if (plan.post_ops.sum) {
      if (p.has_dst_reorder) {
        m.z.set_data_handle(const_cast<void*>(io.sum));
        Execute(p.sum_reorder, *stream, m.sum_scratch, ws,
                {{DNNL_ARG_FROM, &m.z}, {DNNL_ARG_TO, dst}});
      } else if (io.sum != io.y) {
        std::memcpy(io.y, io.sum, p.dst_md.get_size());
      }
    }
    if (plan.has_bias) {
      m.b.set_data_handle(const_cast<void*>(io.b));
      Execute(p.primitive, *stream, m.scratch, ws,
              {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, &m.b},
               {DNNL_ARG_DST, dst}});
    } else {
      Execute(p.primitive, *stream, m.scratch, ws,
              {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    }
    if (p.has_dst_reorder) {
      Execute(p.dst_reorder, *stream, m.dst_scratch, ws,
              {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, &m.y}});
    }
    stream->wait();
  } catch (const dnnl::error& e) {
    return DnnlErrorStatus(plan.transpose ? "ConvTranspose" : "Conv", e);
  }
  if (p.clamp_after) {
    ApplyClampKeepingNaN(*p.clamp_after, static_cast<float*>(io.y),
                         static_cast<int64_t>(p.dst_md.get_size() / sizeof(float)), plan.threads);
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The reference loops on [N, C, spatial...] buffers.
Status RunRef(const ConvPlan& plan, const void* x, const void* w, const void* b, const void* z,
              void* y) {
  return math::DispatchType<math::FloatTypes>(
      plan.dtype, plan.transpose ? "ConvTranspose" : "Conv", [&](auto tag) {
        using T = typename decltype(tag)::type;
        ConvRef(plan, static_cast<const T*>(x), static_cast<const T*>(w),
                static_cast<const T*>(b), static_cast<const T*>(z), static_cast<T*>(y));
      });
}

// The reference loops of a channels_last plan: X, and Z into Y's copy, transposed to
// [N, C, H, W] in the workspace, the loops there, Y transposed back (Z may alias Y).
Status RunRefChannelsLast(const ConvPlan& plan, const ConvBuffers& io) {
  const std::array<int64_t, 4> src = {plan.batch, plan.in_channels, plan.input_spatial[0],
                                      plan.input_spatial[1]};
  const std::array<int64_t, 4> dst = {plan.batch, plan.out_channels, plan.geometry.output[0],
                                      plan.geometry.output[1]};
  std::byte* x = io.workspace.data();
  std::byte* y = x + Align64(Product(src) * DataTypeSize(plan.dtype));
  StridedCopy(plan.dtype, src, io.x, NhwcStrides(src), x, NchwStrides(src));
  if (plan.post_ops.sum) {
    StridedCopy(plan.dtype, dst, io.sum, NhwcStrides(dst), y, NchwStrides(dst));
  }
  NXRT_RETURN_IF_ERROR(RunRef(plan, x, io.w, io.b, y, y));
  StridedCopy(plan.dtype, dst, y, NchwStrides(dst), io.y, NhwcStrides(dst));
  return Status::Ok();
}

}  // namespace

std::string ConvImplementation(const ConvPlan& plan) {
  if (plan.gemm_col2im) return "gemm_col2im";
  return plan.dnnl != nullptr ? plan.dnnl->impl : "reference";
}

Status Conv(const ConvPlan& plan, const ConvBuffers& io) {
  if (Product(plan.output_shape) == 0) return Status::Ok();
  if (io.workspace.size() < plan.workspace_bytes) {
    return MakeStatus(StatusCode::kInvalidArgument, plan.transpose ? "ConvTranspose" : "Conv",
                      ": workspace of ", io.workspace.size(), " bytes, expected ",
                      plan.workspace_bytes);
  }
  if (plan.gemm_col2im) return GemmConvTranspose(plan, io);
  if (plan.dnnl != nullptr) return RunDnnl(plan, io);
  if (plan.channels_last) return RunRefChannelsLast(plan, io);
  return RunRef(plan, io.x, io.w, io.b, io.sum, io.y);
}

Status Conv(const ConvPlan& plan, const void* x, const void* w, const void* b, void* y) {
  std::vector<std::byte> storage(plan.workspace_bytes + 64);
  void* base = storage.data();
  size_t space = storage.size();
  std::align(64, plan.workspace_bytes, base, space);
  ConvBuffers io;
  io.x = x;
  io.w = w;
  io.b = b;
  io.y = y;
  io.workspace = std::span<std::byte>(static_cast<std::byte*>(base), plan.workspace_bytes);
  return Conv(plan, io);
}

}  // namespace nxrt::cpu::nn
