// ep/cpu/math/nn/window.cpp: sliding-window geometry. Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/window.h"

#include <algorithm>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<AutoPad> ParseAutoPad(std::string_view auto_pad) {
  if (auto_pad.empty() || auto_pad == "NOTSET") return AutoPad::kNotSet;
  if (auto_pad == "SAME_UPPER") return AutoPad::kSameUpper;
  if (auto_pad == "SAME_LOWER") return AutoPad::kSameLower;
  if (auto_pad == "VALID") return AutoPad::kValid;
  return MakeStatus(StatusCode::kInvalidArgument, "auto_pad '", auto_pad,
                    "' is not supported (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
}

namespace {

Result<std::vector<int64_t>> PerDim(std::string_view op, std::string_view name,
                                    const std::vector<int64_t>& values, size_t n,
                                    int64_t fallback) {
  if (values.empty()) return std::vector<int64_t>(n, fallback);
  if (values.size() != n) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", name, " ", Str(values), " has ",
                      values.size(), " entries, expected ", n, " (one per spatial dim)");
  }
  for (int64_t v : values) {
    if (v < 1) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": ", name, " ", Str(values),
                        " must be >= 1");
    }
  }
  return values;
}

}  // namespace

Result<WindowGeometry> ComputeWindowGeometry(std::string_view op, std::span<const int64_t> input,
                                             std::span<const int64_t> kernel,
                                             const WindowAttributes& attributes) {
  const size_t n = input.size();
  WindowGeometry g;
  g.kernel.assign(kernel.begin(), kernel.end());
  NXRT_ASSIGN_OR_RETURN(g.kernel, PerDim(op, "kernel_shape", g.kernel, n, 1));
  NXRT_ASSIGN_OR_RETURN(g.strides, PerDim(op, "strides", attributes.strides, n, 1));
  NXRT_ASSIGN_OR_RETURN(g.dilations, PerDim(op, "dilations", attributes.dilations, n, 1));
  g.pads_begin.assign(n, 0);
  g.pads_end.assign(n, 0);
  if (attributes.auto_pad == AutoPad::kNotSet && !attributes.pads.empty()) {
    if (attributes.pads.size() != 2 * n) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": pads ", Str(attributes.pads), " has ",
                        attributes.pads.size(), " entries, expected ", 2 * n);
    }
    for (size_t i = 0; i < n; ++i) {
      g.pads_begin[i] = attributes.pads[i];
      g.pads_end[i] = attributes.pads[n + i];
      if (g.pads_begin[i] < 0 || g.pads_end[i] < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, op, ": pads ", Str(attributes.pads),
                          " must be >= 0");
      }
    }
  }
  g.output.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = input[i], s = g.strides[i];
    // Every size below, and every coordinate TapsAt computes, stays inside int64 once these
    // bounds hold (2^60 each: in + both pads + a stride stays below 2^62).
    constexpr int64_t kBound = int64_t{1} << 60;
    const __int128 dilated = static_cast<__int128>(g.kernel[i] - 1) * g.dilations[i] + 1;
    if (in > kBound || s > kBound || dilated > kBound || g.pads_begin[i] > kBound ||
        g.pads_end[i] > kBound) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": spatial dim ", i, " (size ", in,
                        ", kernel_shape ", Str(g.kernel), ", strides ", Str(g.strides),
                        ", dilations ", Str(g.dilations), ", pads ", g.pads_begin[i], "+",
                        g.pads_end[i], ") gives sizes beyond 2^60");
    }
    const int64_t dk = static_cast<int64_t>(dilated);
    switch (attributes.auto_pad) {
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        const int64_t out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
        const int64_t small = total / 2;
        g.pads_begin[i] = attributes.auto_pad == AutoPad::kSameUpper ? small : total - small;
        g.pads_end[i] = total - g.pads_begin[i];
        g.output[i] = out;
        continue;
      }
      case AutoPad::kValid:
      case AutoPad::kNotSet:
        break;
    }
    const int64_t span = in + g.pads_begin[i] + g.pads_end[i] - dk;
    if (span < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": the dilated kernel (", dk,
                        " along spatial dim ", i, ", kernel_shape ", Str(g.kernel), ", dilations ",
                        Str(g.dilations), ") is larger than the padded input (", in, " + pads ",
                        g.pads_begin[i], "+", g.pads_end[i], ")");
    }
    int64_t out = span / s + 1;
    if (attributes.ceil_mode) {
      out = (span + s - 1) / s + 1;
      // A last window must start inside the input or its begin padding.
      if ((out - 1) * s >= in + g.pads_begin[i]) --out;
    }
    g.output[i] = out;
  }
  // Output positions times kernel taps per plane: beyond 2^40 (a terabyte of output, or of
  // work, per channel) no run could finish, and the callers' products of these sizes with the
  // batch and channel counts must stay inside int64.
  constexpr int64_t kMaxWork = int64_t{1} << 40;
  int64_t work = 1;
  for (size_t i = 0; i < n; ++i) {
    if (__builtin_mul_overflow(work, std::max<int64_t>(1, g.output[i]), &work) ||
        __builtin_mul_overflow(work, std::max<int64_t>(1, g.kernel[i]), &work) ||
        work > kMaxWork) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": output spatial shape ",
                        Str(g.output), " with kernel_shape ", Str(g.kernel),
                        " needs more than 2^40 window positions per channel (input ", Str(input),
                        ", pads ", Str(attributes.pads), ", strides ", Str(g.strides), ")");
    }
  }
  return g;
}

AxisTaps TapsAt(const WindowGeometry& g, size_t d, int64_t in, int64_t o) {
  const int64_t k = g.kernel[d], dilation = g.dilations[d];
  AxisTaps taps;
  taps.first = o * g.strides[d] - g.pads_begin[d];
  // The taps t with first + t * dilation below `limit`: min(k, ceil((limit - first) / dilation)).
  const auto below = [&](int64_t limit) -> int64_t {
    const int64_t room = limit - taps.first;
    if (room <= 0) return 0;
    return std::min(k, dilation == 1 ? room : room / dilation + (room % dilation != 0));
  };
  taps.begin = below(0);
  taps.end = std::max(taps.begin, below(in));
  taps.padded = below(in + g.pads_end[d]);
  return taps;
}

}  // namespace nxrt::cpu::nn
