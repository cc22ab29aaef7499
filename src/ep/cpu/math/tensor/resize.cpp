// ep/cpu/math/tensor/resize.cpp: Resize. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::nn {

Result<ResizeMode> ParseResizeMode(std::string_view mode) {
  if (mode == "nearest") return ResizeMode::kNearest;
  if (mode == "linear" || mode == "bilinear" || mode == "trilinear") return ResizeMode::kLinear;
  if (mode == "cubic") return ResizeMode::kCubic;
  return MakeStatus(StatusCode::kInvalidArgument, "Resize: mode '", mode,
                    "' is not supported (expected nearest, linear or cubic)");
}

Result<ResizeCoordinateMode> ParseResizeCoordinateMode(std::string_view mode) {
  if (mode == "half_pixel") return ResizeCoordinateMode::kHalfPixel;
  if (mode == "half_pixel_symmetric") return ResizeCoordinateMode::kHalfPixelSymmetric;
  if (mode == "pytorch_half_pixel") return ResizeCoordinateMode::kPytorchHalfPixel;
  if (mode == "align_corners") return ResizeCoordinateMode::kAlignCorners;
  if (mode == "asymmetric") return ResizeCoordinateMode::kAsymmetric;
  if (mode == "tf_half_pixel_for_nn") return ResizeCoordinateMode::kTfHalfPixelForNn;
  if (mode == "tf_crop_and_resize") return ResizeCoordinateMode::kTfCropAndResize;
  return MakeStatus(StatusCode::kInvalidArgument, "Resize: coordinate_transformation_mode '", mode,
                    "' is not supported (expected half_pixel, half_pixel_symmetric, "
                    "pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn or "
                    "tf_crop_and_resize)");
}

Result<ResizeNearestMode> ParseResizeNearestMode(std::string_view mode) {
  if (mode == "round_prefer_floor") return ResizeNearestMode::kRoundPreferFloor;
  if (mode == "round_prefer_ceil") return ResizeNearestMode::kRoundPreferCeil;
  if (mode == "floor") return ResizeNearestMode::kFloor;
  if (mode == "ceil") return ResizeNearestMode::kCeil;
  return MakeStatus(StatusCode::kInvalidArgument, "Resize: nearest_mode '", mode,
                    "' is not supported (expected round_prefer_floor, round_prefer_ceil, floor "
                    "or ceil)");
}

Result<KeepAspectRatioPolicy> ParseKeepAspectRatioPolicy(std::string_view policy) {
  if (policy == "stretch") return KeepAspectRatioPolicy::kStretch;
  if (policy == "not_larger") return KeepAspectRatioPolicy::kNotLarger;
  if (policy == "not_smaller") return KeepAspectRatioPolicy::kNotSmaller;
  return MakeStatus(StatusCode::kInvalidArgument, "Resize: keep_aspect_ratio_policy '", policy,
                    "' is not supported (expected stretch, not_larger or not_smaller)");
}

namespace {

// One axis of the resize: lengths, scale and roi.
struct AxisGeometry {
  int64_t in = 0;
  int64_t out = 0;
  double scale = 1.0;
  // scale is exactly out / in (sizes given, stretch): coordinates use integer ratios.
  bool exact = true;
  double length_resized = 0.0;  // in * scale; the spec's (possibly fractional) output length
  double roi_start = 0.0;
  double roi_end = 1.0;
};

double HalfPixel(const AxisGeometry& g, int64_t x) {
  if (g.exact) {
    return static_cast<double>((2 * x + 1) * g.in - g.out) / static_cast<double>(2 * g.out);
  }
  return (static_cast<double>(x) + 0.5) / g.scale - 0.5;
}

// The input coordinate that output coordinate `x` samples (ONNX coordinate_transformation_mode).
double SourceCoordinate(const AxisGeometry& g, ResizeCoordinateMode mode, int64_t x) {
  const double in = static_cast<double>(g.in);
  const double xd = static_cast<double>(x);
  switch (mode) {
    case ResizeCoordinateMode::kHalfPixel:
      return HalfPixel(g, x);
    case ResizeCoordinateMode::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(g.out) / g.length_resized;
      return in / 2 * (1 - adjustment) + HalfPixel(g, x);
    }
    case ResizeCoordinateMode::kPytorchHalfPixel:
      return g.out > 1 ? HalfPixel(g, x) : 0.0;
    case ResizeCoordinateMode::kAlignCorners:
      // length_resized is the output's integer length, as in ONNX Runtime 1.30: the last output
      // maps to the last input also when in * scale is not whole (ONNX 1.12's reference divides
      // by in * scale - 1 instead; ORT and the corners the mode is named for decide).
      return g.out == 1 ? 0.0
                        : static_cast<double>(x * (g.in - 1)) / static_cast<double>(g.out - 1);
    case ResizeCoordinateMode::kAsymmetric:
      return g.exact ? static_cast<double>(x * g.in) / static_cast<double>(g.out) : xd / g.scale;
    case ResizeCoordinateMode::kTfHalfPixelForNn:
      return g.exact ? static_cast<double>((2 * x + 1) * g.in) / static_cast<double>(2 * g.out)
                     : (xd + 0.5) / g.scale;
    case ResizeCoordinateMode::kTfCropAndResize:
      // The output's integer length, as align_corners.
      if (g.out == 1) return 0.5 * (g.roi_start + g.roi_end) * (in - 1);
      return g.roi_start * (in - 1) +
             xd * (g.roi_end - g.roi_start) * (in - 1) / static_cast<double>(g.out - 1);
  }
  return 0.0;
}

int64_t NearestIndex(double x, ResizeNearestMode mode, bool downsample) {
  const double f = std::floor(x);
  switch (mode) {
    case ResizeNearestMode::kLegacy:
      return static_cast<int64_t>(downsample ? std::ceil(x) : f);
    case ResizeNearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(x - f == 0.5 ? f : std::round(x));
    case ResizeNearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(x - f == 0.5 ? f + 1 : std::round(x));
    case ResizeNearestMode::kFloor:
      return static_cast<int64_t>(f);
    case ResizeNearestMode::kCeil:
      return static_cast<int64_t>(std::ceil(x));
  }
  return 0;
}

// The interpolation kernel at distance t: triangle (linear) or Keys cubic with coefficient a.
double InterpolationKernel(ResizeMode mode, double a, double t) {
  t = std::fabs(t);
  if (mode == ResizeMode::kLinear) return std::max(0.0, 1.0 - t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0.0;
}

bool IsOutside(const AxisGeometry& g, ResizeCoordinateMode mode, double x) {
  return mode == ResizeCoordinateMode::kTfCropAndResize &&
         (x < 0 || x > static_cast<double>(g.in - 1));
}

std::vector<int64_t> NearestMap(const AxisGeometry& g, const ResizeAttributes& attr) {
  std::vector<int64_t> map(g.out);
  for (int64_t o = 0; o < g.out; ++o) {
    const double x = SourceCoordinate(g, attr.coordinate_transformation_mode, o);
    if (IsOutside(g, attr.coordinate_transformation_mode, x)) {
      map[o] = -1;
      continue;
    }
    // Clamping first keeps the conversion to int64 defined for far-away coordinates.
    const double c = std::clamp(x, -1.0, static_cast<double>(g.in));
    map[o] = std::clamp<int64_t>(NearestIndex(c, attr.nearest_mode, g.scale < 1.0), 0, g.in - 1);
  }
  return map;
}

ResizeAxis FilterTaps(const AxisGeometry& g, const ResizeAttributes& attr) {
  const double support = attr.mode == ResizeMode::kLinear ? 1.0 : 2.0;
  const double s = attr.antialias ? std::min(g.scale, 1.0) : 1.0;
  // Taps i in [start, 1 - start] around floor(x); the filter is stretched by 1/s.
  const int64_t start = static_cast<int64_t>(std::floor(-support / s)) + 1;
  ResizeAxis axis;
  axis.taps = 2 - 2 * start;
  axis.index.assign(g.out * axis.taps, 0);
  axis.weight.assign(g.out * axis.taps, 0.0);
  axis.outside.assign(g.out, 0);
  const bool normalize = attr.antialias || attr.exclude_outside;
  bool identity = g.in == g.out;
  for (int64_t o = 0; o < g.out; ++o) {
    double x = SourceCoordinate(g, attr.coordinate_transformation_mode, o);
    if (IsOutside(g, attr.coordinate_transformation_mode, x)) {
      axis.outside[o] = 1;
      identity = false;
      continue;
    }
    const double margin = static_cast<double>(axis.taps + 2);
    x = std::clamp(x, -margin, static_cast<double>(g.in) + margin);
    const double f = std::floor(x);
    const double r = x - f;
    const int64_t xi = static_cast<int64_t>(f);
    int64_t* index = &axis.index[o * axis.taps];
    double* weight = &axis.weight[o * axis.taps];
    double sum = 0.0;
    for (int64_t t = 0; t < axis.taps; ++t) {
      const int64_t i = start + t;
      const int64_t p = xi + i;
      double w =
          InterpolationKernel(attr.mode, attr.cubic_coeff_a, s * (static_cast<double>(i) - r));
      if (attr.exclude_outside && (p < 0 || p >= g.in)) w = 0.0;
      index[t] = std::clamp<int64_t>(p, 0, g.in - 1);
      weight[t] = w;
      sum += w;
    }
    if (normalize && sum != 0.0) {
      for (int64_t t = 0; t < axis.taps; ++t) weight[t] /= sum;
    }
    for (int64_t t = 0; t < axis.taps && identity; ++t) {
      identity = weight[t] == 0.0 || (weight[t] == 1.0 && index[t] == o);
    }
  }
  axis.identity = identity;
  return axis;
}

template <typename T>
double Load(T v) {
  return static_cast<double>(ToAcc(v));
}

// Rounds and saturates for integer outputs; plain conversion for floating ones.
template <typename T>
T Store(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T{0};
    v = std::round(v);
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    return static_cast<T>(v);
  } else {
    return FromAcc<T>(v);
  }
}

template <typename T>
void Interpolate(const ResizePlan& plan, const T* in, T* out) {
  const int64_t rank = static_cast<int64_t>(plan.input_shape.size());
  const int64_t count = Product(plan.output_shape);
  if (count == 0) return;
  const T extrapolation = Store<T>(plan.attributes.extrapolation_value);
  if (rank == 0) {
    *out = *in;
    return;
  }
  const std::vector<int64_t> strides = ContiguousStrides(plan.input_shape);
  const ResizeAxis& last = plan.axes[rank - 1];
  const int64_t width = plan.output_shape[rank - 1];
  const int64_t rows = count / width;
  // Each row of the output sums `terms` input rows, with weights from the outer resized axes.
  std::vector<std::pair<int64_t, double>> terms, next;
  std::vector<int64_t> o(rank, 0);
  for (int64_t row = 0; row < rows; ++row, out += width) {
    terms.assign(1, {0, 1.0});
    bool outside = false;
    for (int64_t d = 0; d + 1 < rank && !outside; ++d) {
      const ResizeAxis& ax = plan.axes[d];
      if (ax.identity) {
        for (auto& term : terms) term.first += o[d] * strides[d];
        continue;
      }
      if (ax.outside[o[d]]) {
        outside = true;
        break;
      }
      next.clear();
      for (const auto& term : terms) {
        for (int64_t t = 0; t < ax.taps; ++t) {
          const double w = ax.weight[o[d] * ax.taps + t];
          if (w != 0.0) {
            next.emplace_back(term.first + ax.index[o[d] * ax.taps + t] * strides[d],
                              term.second * w);
          }
        }
      }
      terms.swap(next);
    }
    if (outside) {
      std::fill_n(out, width, extrapolation);
    } else {
      for (int64_t x = 0; x < width; ++x) {
        double sum = 0.0;
        if (last.identity) {
          for (const auto& term : terms) sum += term.second * Load(in[term.first + x]);
        } else if (last.outside[x]) {
          out[x] = extrapolation;
          continue;
        } else {
          const int64_t* index = &last.index[x * last.taps];
          const double* weight = &last.weight[x * last.taps];
          for (const auto& term : terms) {
            double inner = 0.0;
            for (int64_t t = 0; t < last.taps; ++t) {
              inner += weight[t] * Load(in[term.first + index[t]]);
            }
            sum += term.second * inner;
          }
        }
        out[x] = Store<T>(sum);
      }
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++o[d] < plan.output_shape[d]) break;
      o[d] = 0;
    }
  }
}

// Fills the planar fields of a float linear/cubic plan when it qualifies (see resize.h).
void PreparePlanar(ResizePlan& plan) {
  const size_t rank = plan.input_shape.size();
  if (plan.dtype != DataType::kFloat || rank < 2 || Product(plan.output_shape) == 0) return;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (!plan.axes[d].identity) return;
  }
  const ResizeAxis& rows = plan.axes[rank - 2];
  const ResizeAxis& columns = plan.axes[rank - 1];
  const auto inside = [](const ResizeAxis& axis) {
    return std::none_of(axis.outside.begin(), axis.outside.end(), [](uint8_t o) { return o; });
  };
  if (!inside(rows) || !inside(columns) ||
      plan.input_shape[rank - 1] > std::numeric_limits<int32_t>::max()) {
    return;
  }
  plan.planar = true;
  plan.units = Product(std::span(plan.output_shape).first(rank - 1));
  plan.row_index = rows.index;
  plan.row_weight.assign(rows.weight.begin(), rows.weight.end());
  // Tap-major, so the outputs' t-th taps are contiguous. A copied last axis reads one tap, as
  // Interpolate does (a zero-weight neighbour that is infinite must not make a NaN).
  const int64_t out_w = plan.output_shape[rank - 1];
  plan.column_taps = columns.identity ? 1 : columns.taps;
  plan.column_index.resize(plan.column_taps * out_w);
  plan.column_weight.resize(plan.column_taps * out_w);
  for (int64_t ow = 0; ow < out_w; ++ow) {
    if (columns.identity) {
      plan.column_index[ow] = static_cast<int32_t>(ow);
      plan.column_weight[ow] = 1.0f;
      continue;
    }
    for (int64_t t = 0; t < columns.taps; ++t) {
      plan.column_index[t * out_w + ow] = static_cast<int32_t>(columns.index[ow * columns.taps + t]);
      plan.column_weight[t * out_w + ow] = static_cast<float>(columns.weight[ow * columns.taps + t]);
    }
  }
}

// Planar units [begin, end) in float: per output row, the weighted input rows summed into `line`
// (contiguous loads), then each output's taps of `line` (gathers), both vectorised.
void PlanarUnits(const ResizePlan& plan, const float* in, float* out, int64_t begin,
                 int64_t end) {
  const size_t rank = plan.input_shape.size();
  const int64_t in_h = plan.input_shape[rank - 2], in_w = plan.input_shape[rank - 1];
  const int64_t out_h = plan.output_shape[rank - 2], out_w = plan.output_shape[rank - 1];
  const int64_t row_taps = plan.axes[rank - 2].taps, column_taps = plan.column_taps;
  std::vector<float> line(in_w);
  math::CallWidest([&] {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t plane = unit / out_h, oh = unit % out_h;
      const float* xp = in + plane * in_h * in_w;
      std::fill(line.begin(), line.end(), 0.0f);
      for (int64_t t = 0; t < row_taps; ++t) {
        const float w = plan.row_weight[oh * row_taps + t];
        if (w == 0.0f) continue;
        const float* xr = xp + plan.row_index[oh * row_taps + t] * in_w;
        for (int64_t c = 0; c < in_w; ++c) line[c] += w * xr[c];
      }
      float* __restrict yr = out + unit * out_w;
      const float* __restrict source = line.data();
      std::fill(yr, yr + out_w, 0.0f);
      for (int64_t t = 0; t < column_taps; ++t) {
        const int32_t* __restrict index = plan.column_index.data() + t * out_w;
        const float* __restrict weight = plan.column_weight.data() + t * out_w;
        for (int64_t ow = 0; ow < out_w; ++ow) yr[ow] += weight[ow] * source[index[ow]];
      }
    }
  });
}

}  // namespace

Result<ResizePlan> PrepareResize(DataType dtype, std::span<const int64_t> input_shape,
                                 const ResizeAttributes& attributes, std::span<const double> roi,
                                 std::span<const float> scales, std::span<const int64_t> sizes) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Resize", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Resize", "input", input_shape));
  if (attributes.mode != ResizeMode::kNearest) {
    NXRT_RETURN_IF_ERROR(
        math::DispatchType<math::NumericTypesBf16>(dtype, "Resize (linear/cubic)", [](auto) {}));
  }
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  std::vector<int64_t> axes;
  std::vector<bool> seen(rank, false);
  if (attributes.axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    for (int64_t a : attributes.axes) {
      NXRT_ASSIGN_OR_RETURN(const int64_t d, NormalizeAxis("Resize", a, rank));
      if (seen[d]) {
        return MakeStatus(StatusCode::kInvalidArgument, "Resize: axes ", Str(attributes.axes),
                          " repeat axis ", d);
      }
      seen[d] = true;
      axes.push_back(d);
    }
  }
  const size_t n = axes.size();
  if (scales.empty() == sizes.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument, "Resize: exactly one of scales (",
                      scales.size(), " values) and sizes (", sizes.size(),
                      " values) must be given for input ", Str(input_shape));
  }
  if ((!scales.empty() && scales.size() != n) || (!sizes.empty() && sizes.size() != n) ||
      (!roi.empty() && roi.size() != 2 * n)) {
    return MakeStatus(StatusCode::kInvalidArgument, "Resize: input ", Str(input_shape), " has ", n,
                      " resized axes, but got ", scales.size(), " scales, ", sizes.size(),
                      " sizes and ", roi.size(), " roi values (expected ", n, ", ", n, ", ", 2 * n,
                      ")");
  }
  std::vector<AxisGeometry> geo(rank);
  for (int64_t d = 0; d < rank; ++d) {
    geo[d].in = geo[d].out = input_shape[d];
    geo[d].length_resized = static_cast<double>(input_shape[d]);
  }
  double common_scale = 0.0;
  if (!sizes.empty() && attributes.keep_aspect_ratio_policy != KeepAspectRatioPolicy::kStretch) {
    for (size_t i = 0; i < n; ++i) {
      const double r = static_cast<double>(sizes[i]) / static_cast<double>(input_shape[axes[i]]);
      if (i == 0) {
        common_scale = r;
      } else if (attributes.keep_aspect_ratio_policy == KeepAspectRatioPolicy::kNotLarger) {
        common_scale = std::min(common_scale, r);
      } else {
        common_scale = std::max(common_scale, r);
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    AxisGeometry& g = geo[axes[i]];
    if (!roi.empty()) {
      g.roi_start = roi[i];
      g.roi_end = roi[n + i];
    }
    if (!scales.empty()) {
      if (!(scales[i] > 0.0f) || !std::isfinite(scales[i])) {
        return MakeStatus(StatusCode::kInvalidArgument, "Resize: scale ", scales[i], " for axis ",
                          axes[i], " of input ", Str(input_shape), " must be finite and > 0");
      }
      g.exact = false;
      g.scale = scales[i];
      g.length_resized = static_cast<double>(g.in) * g.scale;
      g.out = static_cast<int64_t>(std::floor(g.length_resized));
    } else if (sizes[i] < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Resize: sizes ", Str(sizes),
                        " has a negative entry");
    } else if (attributes.keep_aspect_ratio_policy != KeepAspectRatioPolicy::kStretch) {
      g.exact = false;
      g.scale = common_scale;
      g.length_resized = static_cast<double>(g.in) * g.scale;
      g.out = static_cast<int64_t>(std::floor(g.length_resized + 0.5));
    } else {
      g.out = sizes[i];
      g.length_resized = static_cast<double>(g.out);
      g.scale = g.in == 0 ? 1.0 : static_cast<double>(g.out) / static_cast<double>(g.in);
    }
    if (g.in == 0 && g.out > 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Resize: axis ", axes[i], " of input ",
                        Str(input_shape), " is empty but the output needs ", g.out, " elements");
    }
  }
  ResizePlan plan;
  plan.dtype = dtype;
  plan.attributes = attributes;
  plan.input_shape.assign(input_shape.begin(), input_shape.end());
  for (const AxisGeometry& g : geo) plan.output_shape.push_back(g.out);
  if (attributes.mode == ResizeMode::kNearest) {
    for (const AxisGeometry& g : geo) plan.maps.push_back(NearestMap(g, attributes));
    if (dtype != DataType::kString && dtype != DataType::kBool) {
      NXRT_RETURN_IF_ERROR(
          math::DispatchType<math::NumericTypesBf16>(dtype, "Resize", [&](auto tag) -> Status {
            using T = typename decltype(tag)::type;
            const T v = Store<T>(attributes.extrapolation_value);
            std::memcpy(plan.fill, &v, sizeof(T));
            return Status::Ok();
          }));
    }
  } else {
    for (const AxisGeometry& g : geo) plan.axes.push_back(FilterTaps(g, attributes));
    PreparePlanar(plan);
  }
  return plan;
}

Status Resize(const ResizePlan& plan, const void* input, void* output) {
  if (plan.attributes.mode == ResizeMode::kNearest) {
    const bool typed_fill = plan.dtype != DataType::kString && plan.dtype != DataType::kBool;
    GatherByAxisMaps(plan.dtype, plan.input_shape, input, plan.maps,
                     typed_fill ? plan.fill : nullptr, output);
    return Status::Ok();
  }
  if (plan.planar) {
    ResizeUnits(plan, input, output, 0, plan.units);
    return Status::Ok();
  }
  return math::DispatchType<math::NumericTypesBf16>(plan.dtype, "Resize", [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    Interpolate<T>(plan, static_cast<const T*>(input), static_cast<T*>(output));
    return Status::Ok();
  });
}

void ResizeUnits(const ResizePlan& plan, const void* input, void* output, int64_t begin,
                 int64_t end) {
  begin = std::clamp<int64_t>(begin, 0, plan.units);
  end = std::clamp<int64_t>(end, begin, plan.units);
  PlanarUnits(plan, static_cast<const float*>(input), static_cast<float*>(output), begin, end);
}

}  // namespace nxrt::cpu::nn
