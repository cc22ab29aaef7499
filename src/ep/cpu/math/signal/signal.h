// ep/cpu/math/signal/signal.h: the ONNX signal operators (opset 17, onnx/defs/math/defs.cc): the
// window generators HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix, DFT and STFT.
//
// Layer: nxrt_cpu_math (framework-free reference math; no IR, no EP API). Everything computes in
// double and rounds once to the output type. The transforms are direct DFTs over a twiddle table
// built at prepare time (O(L^2) per signal); complex values are stored as a trailing dim of 2
// (real, imaginary), real input signals as a trailing dim of 1.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

enum class WindowKind { kHann, kHamming, kBlackman };

// Writes the `size`-point window into `out` as `dtype` (any numeric type, ConvertElement rules).
// With `periodic` the window is one period of length size + 1 with its last point dropped
// (denominator size), otherwise symmetric (denominator size - 1; a 1-point window is [1]):
//   Hann      0.5 - 0.5 cos(2 pi n / den)
//   Hamming   25/46 - 21/46 cos(2 pi n / den)
//   Blackman  0.42 - 0.5 cos(2 pi n / den) + 0.08 cos(4 pi n / den)
// Errors: kUnsupported for a non-numeric dtype.
Status GenerateWindow(WindowKind kind, int64_t size, bool periodic, DataType dtype, void* out);

// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] triangular filters between
// lower_edge_hertz and upper_edge_hertz on the mel scale (2595 log10(1 + f / 700)), their
// edges placed on the DFT bins floor((dft_length + 1) * f / sample_rate). Writes `dtype`.
// Errors: kInvalidArgument for num_mel_bins < 1, dft_length < 1, sample_rate < 1 or edges
// outside [0, sample_rate / 2] in the wrong order; kUnsupported for a non-numeric dtype.
struct MelParameters {
  int64_t num_mel_bins = 0;
  int64_t dft_length = 0;
  int64_t sample_rate = 0;
  double lower_edge_hertz = 0;
  double upper_edge_hertz = 0;
};
Status GenerateMelWeightMatrix(const MelParameters& p, DataType dtype, void* out);

// A batch of 1-D DFTs: x viewed as [outer, signal_length, inner, components] (components 1 for
// real input, 2 for complex), y as [outer, bins, inner, 2]. Only the first
// min(signal_length, length) samples enter (shorter signals are zero-padded).
struct DftPlan {
  DataType dtype = DataType::kUndefined;
  int64_t outer = 1, signal_length = 0, inner = 1, components = 1;
  int64_t length = 0;  // the DFT length L
  int64_t bins = 0;    // L, or L / 2 + 1 when one-sided
  bool inverse = false;
  std::vector<double> cosines, sines;  // cos/sin(2 pi j / L), j < L
  void (*fn)(const DftPlan&, const void* x, void* y) = nullptr;
};

// The plan for x of `x_shape` (rank >= 2, last dim 1 or 2) transformed along `axis` (a dim
// before the last; may be negative, counting over x's dims). `length` <= 0 means the signal's
// length. Output shape: x's with dim `axis` = bins and the last dim 2. Errors (kInvalidArgument)
// print the shape and values: a bad last dim, axis out of range, a negative length; kUnsupported
// for a dtype other than float, double, float16, bfloat16.
Result<DftPlan> PrepareDft(DataType dtype, std::span<const int64_t> x_shape, int64_t axis,
                           int64_t length, bool inverse, bool onesided, Shape& y_shape);
void Dft(const DftPlan& plan, const void* x, void* y);

// STFT: signal [batch, signal_length, 1 or 2] cut into frames of `frame_length` every
// `frame_step` samples, each multiplied by `window` (when given, of the signal's dtype and
// length frame_length) and transformed: y [batch, frames, bins, 2] with frames =
// (signal_length - frame_length) / frame_step + 1 and bins frame_length / 2 + 1 when one-sided.
struct StftPlan {
  DftPlan dft;  // one frame: outer 1, inner 1
  int64_t batch = 0, signal_length = 0, frames = 0, frame_step = 0, frame_length = 0;
  void (*fn)(const StftPlan&, const void* signal, const void* window, void* y) = nullptr;
};
// Errors (kInvalidArgument): signal rank != 3 or last dim not 1/2, frame_step < 1,
// frame_length < 1 or larger than the signal, window of the wrong length, one-sided output of a
// complex signal.
Result<StftPlan> PrepareStft(DataType dtype, std::span<const int64_t> signal_shape,
                             int64_t frame_step, int64_t frame_length, bool onesided,
                             Shape& y_shape);
void Stft(const StftPlan& plan, const void* signal, const void* window, void* y);

}  // namespace nxrt::cpu::math
