// ep/cpu/math/nn/window.h: sliding-window geometry shared by Conv and the pools: auto_pad, the
// output-size formula, and explicit or derived pads.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Everything here is spatial: index i is
// spatial dim i (the dims after N and C). With k the kernel, d the dilation, s the stride and
// dk = (k - 1) * d + 1 the dilated kernel extent, per the ONNX Conv/pool specs:
//   NOTSET      out = floor((in + pad_begin + pad_end - dk) / s) + 1
//               (ceil instead of floor with ceil_mode, dropping a last window that would start
//               beyond the input and its begin padding)
//   VALID       pads 0, out = floor((in - dk) / s) + 1
//   SAME_UPPER  out = ceil(in / s), total pad = max(0, (out - 1) * s + dk - in), the extra
//   SAME_LOWER  pad at the end (UPPER) or at the beginning (LOWER)
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/status.h"

namespace nxrt::cpu::nn {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// "NOTSET", "SAME_UPPER", "SAME_LOWER" or "VALID" (empty means NOTSET); kInvalidArgument
// otherwise.
Result<AutoPad> ParseAutoPad(std::string_view auto_pad);

struct WindowAttributes {
  AutoPad auto_pad = AutoPad::kNotSet;
  std::vector<int64_t> strides;    // empty: all 1
  std::vector<int64_t> dilations;  // empty: all 1
  std::vector<int64_t> pads;       // [begin..., end...]; empty: all 0 (ignored unless NOTSET)
  bool ceil_mode = false;          // pools only
};

struct WindowGeometry {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;
  std::vector<int64_t> pads_end;
  std::vector<int64_t> output;  // spatial output dims
};

// The kernel taps of output position `o` along spatial dim `d` of a window over `in` input
// positions: tap t (0 <= t < kernel) reads input coordinate first + t * dilation. Taps
// [begin, end) read the input (0 <= begin <= end <= kernel; begin == end when none does); taps
// [0, padded) lie inside the padded input [-pads_begin, in + pads_end), which AveragePool's
// count_include_pad counts. Computed per position instead of tabled per tap, so nothing of size
// output x kernel is held. Needs `g` from ComputeWindowGeometry (its bounds keep this in int64).
struct AxisTaps {
  int64_t first = 0;
  int64_t begin = 0;
  int64_t end = 0;
  int64_t padded = 0;
};
AxisTaps TapsAt(const WindowGeometry& g, size_t d, int64_t in, int64_t o);

// Resolves the geometry of `kernel` sliding over `input` (both spatial). `op` names the caller
// in errors: wrong attribute lengths, non-positive strides/dilations/kernel, negative pads, or a
// dilated kernel larger than the padded input (each message prints the values involved).
Result<WindowGeometry> ComputeWindowGeometry(std::string_view op, std::span<const int64_t> input,
                                             std::span<const int64_t> kernel,
                                             const WindowAttributes& attributes);

}  // namespace nxrt::cpu::nn
