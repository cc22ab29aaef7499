// ep/cpu/math/signal/signal.cpp: window generators, MelWeightMatrix, DFT and STFT (see signal.h).
#include "ep/cpu/math/signal/signal.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::math {
namespace {

using OutputTypes = NumericTypesBf16;
using SignalTypes = FloatTypesBf16;

// Writes values[i] (i < count) as `dtype`.
template <typename Fn>
Status WriteAs(DataType dtype, std::string_view op, int64_t count, void* out, Fn&& value) {
  return DispatchType<OutputTypes>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < count; ++i) o[i] = ConvertElement<T>(value(i));
  });
}

template <typename T>
double LoadDouble(const T* p, int64_t i) {
  return static_cast<double>(Load(p[i]));
}

template <typename T>
void StoreDouble(T* p, int64_t i, double v) {
  if constexpr (kIsHalf<T>) {
    p[i] = T(RoundToOddFloat(v));
  } else {
    p[i] = static_cast<T>(v);
  }
}

// y[f] for f < bins of one signal: x at x + n * x_stride (components interleaved), y at
// y + f * y_stride, both (real, imaginary) pairs; `weights` (nullable) multiply the samples.
template <typename T>
void DftOne(const DftPlan& p, const T* x, int64_t x_stride, const T* weights, T* y,
            int64_t y_stride) {
  const int64_t n_count = std::min(p.signal_length, p.length);
  const double sign = p.inverse ? 1.0 : -1.0;
  const double scale = p.inverse ? 1.0 / static_cast<double>(p.length) : 1.0;
  for (int64_t f = 0; f < p.bins; ++f) {
    double re = 0, im = 0;
    int64_t j = 0;  // (f * n) mod L
    for (int64_t n = 0; n < n_count; ++n) {
      const double w = weights != nullptr ? LoadDouble(weights, n) : 1.0;
      const double xr = LoadDouble(x, n * x_stride) * w;
      const double xi = p.components == 2 ? LoadDouble(x, n * x_stride + 1) * w : 0.0;
      const double c = p.cosines[j], s = sign * p.sines[j];
      re += xr * c - xi * s;
      im += xr * s + xi * c;
      j += f;
      if (j >= p.length) j %= p.length;
    }
    StoreDouble(y, f * y_stride, re * scale);
    StoreDouble(y, f * y_stride + 1, im * scale);
  }
}

template <typename T>
void DftTyped(const DftPlan& p, const void* x_raw, void* y_raw) {
  const T* x = static_cast<const T*>(x_raw);
  T* y = static_cast<T*>(y_raw);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      DftOne(p, x + (o * p.signal_length * p.inner + i) * p.components,
             p.inner * p.components, static_cast<const T*>(nullptr),
             y + (o * p.bins * p.inner + i) * 2, p.inner * 2);
    }
  }
}

template <typename T>
void StftTyped(const StftPlan& p, const void* signal_raw, const void* window_raw, void* y_raw) {
  const T* signal = static_cast<const T*>(signal_raw);
  const T* window = static_cast<const T*>(window_raw);
  T* y = static_cast<T*>(y_raw);
  const int64_t c = p.dft.components;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t f = 0; f < p.frames; ++f) {
      DftOne(p.dft, signal + (b * p.signal_length + f * p.frame_step) * c, c, window,
             y + ((b * p.frames + f) * p.dft.bins) * 2, 2);
    }
  }
}

void FillTwiddles(DftPlan& p) {
  p.cosines.resize(static_cast<size_t>(p.length));
  p.sines.resize(static_cast<size_t>(p.length));
  for (int64_t j = 0; j < p.length; ++j) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(j) /
                         static_cast<double>(p.length);
    p.cosines[j] = std::cos(angle);
    p.sines[j] = std::sin(angle);
  }
}

}  // namespace

Status GenerateWindow(WindowKind kind, int64_t size, bool periodic, DataType dtype, void* out) {
  const double den = static_cast<double>(periodic ? size : size - 1);
  return WriteAs(dtype, "window function", size, out, [&](int64_t n) {
    if (den <= 0) return 1.0;
    const double x = 2.0 * std::numbers::pi * static_cast<double>(n) / den;
    switch (kind) {
      case WindowKind::kHann:
        return 0.5 - 0.5 * std::cos(x);
      case WindowKind::kHamming:
        return 25.0 / 46.0 - 21.0 / 46.0 * std::cos(x);
      case WindowKind::kBlackman:
        return 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
    }
    return 0.0;
  });
}

Status GenerateMelWeightMatrix(const MelParameters& p, DataType dtype, void* out) {
  if (p.num_mel_bins < 1 || p.dft_length < 1 || p.sample_rate < 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "MelWeightMatrix: num_mel_bins ",
                      p.num_mel_bins, ", dft_length ", p.dft_length, " and sample_rate ",
                      p.sample_rate, " must all be positive");
  }
  const int64_t spectrogram_bins = p.dft_length / 2 + 1;
  const auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double low_mel = to_mel(p.lower_edge_hertz);
  const double step = (to_mel(p.upper_edge_hertz) - low_mel) / static_cast<double>(p.num_mel_bins + 2);
  std::vector<int64_t> edges(static_cast<size_t>(p.num_mel_bins + 2));
  for (size_t i = 0; i < edges.size(); ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595.0) - 1.0);
    edges[i] = static_cast<int64_t>(std::floor(static_cast<double>(p.dft_length + 1) * hz /
                                               static_cast<double>(p.sample_rate)));
    if (edges[i] < 0 || edges[i] >= spectrogram_bins) {
      return MakeStatus(StatusCode::kInvalidArgument, "MelWeightMatrix: edge ", i, " at ", hz,
                        " Hz falls on DFT bin ", edges[i], ", outside [0, ", spectrogram_bins - 1,
                        "]; keep lower_edge_hertz and upper_edge_hertz within [0, sample_rate/2]");
    }
  }
  std::vector<double> weights(static_cast<size_t>(spectrogram_bins * p.num_mel_bins), 0.0);
  const auto at = [&](int64_t bin, int64_t mel) -> double& {
    return weights[static_cast<size_t>(bin * p.num_mel_bins + mel)];
  };
  for (int64_t m = 0; m < p.num_mel_bins; ++m) {
    const int64_t lo = edges[m], center = edges[m + 1], hi = edges[m + 2];
    if (center == lo) {
      at(center, m) = 1.0;
    } else {
      for (int64_t j = lo; j <= center; ++j) {
        at(j, m) = static_cast<double>(j - lo) / static_cast<double>(center - lo);
      }
    }
    for (int64_t j = center; j < hi; ++j) {
      at(j, m) = static_cast<double>(hi - j) / static_cast<double>(hi - center);
    }
  }
  return WriteAs(dtype, "MelWeightMatrix", static_cast<int64_t>(weights.size()), out,
                 [&](int64_t i) { return weights[static_cast<size_t>(i)]; });
}

Result<DftPlan> PrepareDft(DataType dtype, std::span<const int64_t> x_shape, int64_t axis,
                           int64_t length, bool inverse, bool onesided, Shape& y_shape) {
  DftPlan p;
  p.dtype = dtype;
  const int64_t rank = static_cast<int64_t>(x_shape.size());
  if (rank < 2 || (x_shape.back() != 1 && x_shape.back() != 2)) {
    return MakeStatus(StatusCode::kInvalidArgument, "DFT: input has shape ",
                      ShapeToString(Shape(x_shape.begin(), x_shape.end())),
                      "; expected rank >= 2 with a last dim of 1 (real) or 2 (complex)");
  }
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank - 1) {
    return MakeStatus(StatusCode::kInvalidArgument, "DFT: axis ", axis,
                      " is out of range for input of rank ", rank, "; use a dim in [", -rank,
                      ", ", rank - 2, "] other than the last");
  }
  p.components = x_shape.back();
  p.signal_length = x_shape[a];
  for (int64_t d = 0; d < a; ++d) p.outer *= x_shape[d];
  for (int64_t d = a + 1; d < rank - 1; ++d) p.inner *= x_shape[d];
  if (length < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "DFT: dft_length is ", length,
                      "; give a positive length or omit it");
  }
  p.length = length == 0 ? p.signal_length : length;
  p.bins = onesided ? p.length / 2 + 1 : p.length;
  p.inverse = inverse;
  FillTwiddles(p);
  NXRT_RETURN_IF_ERROR(DispatchType<SignalTypes>(dtype, "DFT", [&](auto tag) {
    p.fn = &DftTyped<typename decltype(tag)::type>;
  }));
  y_shape.assign(x_shape.begin(), x_shape.end());
  y_shape[a] = p.bins;
  y_shape.back() = 2;
  return p;
}

void Dft(const DftPlan& plan, const void* x, void* y) { plan.fn(plan, x, y); }

Result<StftPlan> PrepareStft(DataType dtype, std::span<const int64_t> signal_shape,
                             int64_t frame_step, int64_t frame_length, bool onesided,
                             Shape& y_shape) {
  StftPlan p;
  if (signal_shape.size() != 3 || (signal_shape[2] != 1 && signal_shape[2] != 2)) {
    return MakeStatus(StatusCode::kInvalidArgument, "STFT: signal has shape ",
                      ShapeToString(Shape(signal_shape.begin(), signal_shape.end())),
                      "; expected [batch, signal_length, 1 or 2]");
  }
  p.batch = signal_shape[0];
  p.signal_length = signal_shape[1];
  if (frame_step < 1 || frame_length < 1 || frame_length > p.signal_length) {
    return MakeStatus(StatusCode::kInvalidArgument, "STFT: frame_step ", frame_step,
                      " and frame_length ", frame_length, " must be positive, and frame_length "
                      "at most the signal length ", p.signal_length);
  }
  if (onesided && signal_shape[2] == 2) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "STFT: a one-sided transform needs a real signal (last dim 1); set "
                      "onesided=0 for complex signals");
  }
  p.frame_step = frame_step;
  p.frame_length = frame_length;
  p.frames = (p.signal_length - frame_length) / frame_step + 1;
  DftPlan& d = p.dft;
  d.dtype = dtype;
  d.components = signal_shape[2];
  d.signal_length = frame_length;
  d.length = frame_length;
  d.bins = onesided ? frame_length / 2 + 1 : frame_length;
  FillTwiddles(d);
  NXRT_RETURN_IF_ERROR(DispatchType<SignalTypes>(dtype, "STFT", [&](auto tag) {
    p.fn = &StftTyped<typename decltype(tag)::type>;
  }));
  y_shape = {p.batch, p.frames, d.bins, 2};
  return p;
}

void Stft(const StftPlan& plan, const void* signal, const void* window, void* y) {
  plan.fn(plan, signal, window, y);
}

}  // namespace nxrt::cpu::math
