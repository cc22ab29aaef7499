// ep/cpu/nn/conv.cpp: Conv and ConvTranspose (oneDNN for float, reference loops otherwise).
// Layer: nxrt_cpu_nn.
#include "ep/cpu/nn/conv.h"

#include <algorithm>
#include <unordered_map>

#include "ep/cpu/nn/dnnl_util.h"
#include "ep/cpu/nn/nn_common.h"

namespace nxrt::cpu::nn {

struct DnnlConvPrimitive {
  dnnl::primitive primitive;
  dnnl::memory::desc src_md, weights_md, bias_md, dst_md;
  // Scratchpad is per call (user mode): oneDNN's primitive cache may hand two kernels the same
  // primitive, and a library-owned scratchpad is not safe under concurrent execution.
  dnnl::memory::desc scratchpad_md;
};

namespace {

using dt = dnnl::memory::data_type;

Status CheckConvType(std::string_view op, DataType dtype) {
  if (dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kFloat16) {
    return Status::Ok();
  }
  return MakeStatus(StatusCode::kUnsupported, op, ": element type ", DataTypeName(dtype),
                    " is not supported (expected float, double or float16)");
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

// Creates the oneDNN primitive of a float plan, or leaves plan.dnnl null when oneDNN declines.
void CreateDnnlConv(ConvPlan& plan) {
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

  Shape src_dims = {plan.batch, plan.in_channels};
  src_dims.insert(src_dims.end(), plan.input_spatial.begin(), plan.input_spatial.end());
  std::vector<int64_t> dilates, pad_r;
  for (size_t i = 0; i < nsp; ++i) {
    dilates.push_back(geo.dilations[i] - 1);
    const int64_t dk = (geo.kernel[i] - 1) * geo.dilations[i] + 1;
    // oneDNN derives the output from the pads: give it the end pad that yields our output.
    pad_r.push_back(plan.transpose ? (plan.input_spatial[i] - 1) * geo.strides[i] + dk -
                                         geo.pads_begin[i] - geo.output[i]
                                   : geo.pads_end[i]);
  }
  auto prim = std::make_shared<DnnlConvPrimitive>();
  try {
    prim->src_md =
        dnnl::memory::desc(ToDims(src_dims), dt::f32, ToDims(ContiguousStrides(src_dims)));
    prim->weights_md = dnnl::memory::desc(ToDims(wdims), dt::f32, ToDims(wstrides));
    prim->bias_md = dnnl::memory::desc({plan.out_channels}, dt::f32, {1});
    prim->dst_md = dnnl::memory::desc(ToDims(plan.output_shape), dt::f32,
                                      ToDims(ContiguousStrides(plan.output_shape)));
    const dnnl::memory::desc no_bias;
    const dnnl::memory::desc& bias = plan.has_bias ? prim->bias_md : no_bias;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!plan.transpose) {
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, prim->src_md,
          prim->weights_md, bias, prim->dst_md, ToDims(geo.strides), ToDims(dilates),
          ToDims(geo.pads_begin), ToDims(pad_r));
      dnnl::convolution_forward::primitive_desc pd(desc, attr, *engine);
      prim->scratchpad_md = pd.scratchpad_desc();
      prim->primitive = dnnl::convolution_forward(pd);
    } else {
      dnnl::deconvolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, prim->src_md,
          prim->weights_md, bias, prim->dst_md, ToDims(geo.strides), ToDims(dilates),
          ToDims(geo.pads_begin), ToDims(pad_r));
      dnnl::deconvolution_forward::primitive_desc pd(desc, attr, *engine);
      prim->scratchpad_md = pd.scratchpad_desc();
      prim->primitive = dnnl::deconvolution_forward(pd);
    }
  } catch (const dnnl::error&) {
    return;
  }
  plan.dnnl = std::move(prim);
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
void ConvRef(const ConvPlan& plan, const T* x, const T* w, const T* b, T* y) {
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
        ym[oi] = FromAcc<T>(acc);
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
                             const ConvAttributes& attributes) {
  ConvPlan plan;
  plan.dtype = dtype;
  std::vector<int64_t> kernel;
  NXRT_RETURN_IF_ERROR(
      CheckConvShapes("Conv", false, x_shape, w_shape, b_shape, attributes, plan, kernel));
  WindowAttributes window;
  window.auto_pad = attributes.auto_pad;
  window.strides = attributes.strides;
  window.dilations = attributes.dilations;
  window.pads = attributes.pads;
  NXRT_ASSIGN_OR_RETURN(plan.geometry,
                        ComputeWindowGeometry("Conv", plan.input_spatial, kernel, window));
  plan.output_shape = {plan.batch, plan.out_channels};
  plan.output_shape.insert(plan.output_shape.end(), plan.geometry.output.begin(),
                           plan.geometry.output.end());
  CreateDnnlConv(plan);
  return plan;
}

Result<ConvPlan> PrepareConvTranspose(DataType dtype, std::span<const int64_t> x_shape,
                                      std::span<const int64_t> w_shape,
                                      std::optional<std::span<const int64_t>> b_shape,
                                      const ConvAttributes& attributes) {
  constexpr std::string_view kOp = "ConvTranspose";
  ConvPlan plan;
  plan.dtype = dtype;
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
  CreateDnnlConv(plan);
  return plan;
}

Status Conv(const ConvPlan& plan, const void* x, const void* w, const void* b, void* y) {
  if (Product(plan.output_shape) == 0) return Status::Ok();
  const std::string_view op = plan.transpose ? "ConvTranspose" : "Conv";
  if (plan.dnnl != nullptr) {
    const DnnlConvPrimitive& p = *plan.dnnl;
    NXRT_ASSIGN_OR_RETURN(dnnl::engine engine, DnnlEngine());
    NXRT_ASSIGN_OR_RETURN(dnnl::stream * stream, DnnlStream());
    try {
      std::unordered_map<int, dnnl::memory> args = {
          {DNNL_ARG_SRC, dnnl::memory(p.src_md, engine, const_cast<void*>(x))},
          {DNNL_ARG_WEIGHTS, dnnl::memory(p.weights_md, engine, const_cast<void*>(w))},
          {DNNL_ARG_DST, dnnl::memory(p.dst_md, engine, y)}};
      if (plan.has_bias) {
        args.emplace(DNNL_ARG_BIAS, dnnl::memory(p.bias_md, engine, const_cast<void*>(b)));
      }
      args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(p.scratchpad_md, engine));
      p.primitive.execute(*stream, args);
      stream->wait();
    } catch (const dnnl::error& e) {
      return DnnlErrorStatus(op, e);
    }
    return Status::Ok();
  }
  switch (plan.dtype) {
    case DataType::kFloat:
      ConvRef(plan, static_cast<const float*>(x), static_cast<const float*>(w),
              static_cast<const float*>(b), static_cast<float*>(y));
      return Status::Ok();
    case DataType::kDouble:
      ConvRef(plan, static_cast<const double*>(x), static_cast<const double*>(w),
              static_cast<const double*>(b), static_cast<double*>(y));
      return Status::Ok();
    case DataType::kFloat16:
      ConvRef(plan, static_cast<const Float16*>(x), static_cast<const Float16*>(w),
              static_cast<const Float16*>(b), static_cast<Float16*>(y));
      return Status::Ok();
    default:
      return CheckConvType(op, plan.dtype);
  }
}

}  // namespace nxrt::cpu::nn
