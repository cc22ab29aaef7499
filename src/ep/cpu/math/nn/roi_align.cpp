// ep/cpu/math/nn/roi_align.cpp: RoiAlign (see roi_align.h).
#include "ep/cpu/math/nn/roi_align.h"

#include <algorithm>
#include <cmath>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::nn {
namespace {

// The four corners and weights of a bilinear sample (all weights 0 outside the image).
struct Sample {
  int64_t at[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
};

// `coord` on an axis of `size` pixels: its low and high pixel and the weight of the high one;
// false when the point lies beyond [-1, size] (always, for an empty axis).
bool Axis(double coord, int64_t size, int64_t& low, int64_t& high, double& frac) {
  if (size == 0 || coord < -1.0 || coord > static_cast<double>(size)) return false;
  coord = std::max(coord, 0.0);
  low = static_cast<int64_t>(coord);
  if (low >= size - 1) {
    low = high = size - 1;
    coord = static_cast<double>(low);
  } else {
    high = low + 1;
  }
  frac = coord - static_cast<double>(low);
  return true;
}

Sample MakeSample(double y, double x, int64_t h, int64_t w) {
  Sample s;
  int64_t y0, y1, x0, x1;
  double ly, lx;
  if (!Axis(y, h, y0, y1, ly) || !Axis(x, w, x0, x1, lx)) return s;
  const double hy = 1 - ly, hx = 1 - lx;
  s.at[0] = y0 * w + x0;
  s.at[1] = y0 * w + x1;
  s.at[2] = y1 * w + x0;
  s.at[3] = y1 * w + x1;
  s.weight[0] = hy * hx;
  s.weight[1] = hy * lx;
  s.weight[2] = ly * hx;
  s.weight[3] = ly * lx;
  return s;
}

template <typename T>
void RoiAlignTyped(const RoiAlignPlan& p, const void* x_raw, const void* rois_raw,
                   const int64_t* batch_indices, void* y_raw, int64_t begin, int64_t end) {
  const T* x = static_cast<const T*>(x_raw);
  const T* rois = static_cast<const T*>(rois_raw);
  T* y = static_cast<T*>(y_raw);
  const RoiAlignAttributes& a = p.attributes;
  const double offset = a.half_pixel ? 0.5 : 0.0;
  const double scale = static_cast<double>(a.spatial_scale);
  const int64_t out_h = a.output_height, out_w = a.output_width, plane = p.h * p.w;
  for (int64_t r = begin; r < end; ++r) {
    const T* roi = rois + r * 4;
    const double start_w = static_cast<double>(math::Load(roi[0])) * scale - offset;
    const double start_h = static_cast<double>(math::Load(roi[1])) * scale - offset;
    double extent_w = static_cast<double>(math::Load(roi[2])) * scale - offset - start_w;
    double extent_h = static_cast<double>(math::Load(roi[3])) * scale - offset - start_h;
    if (!a.half_pixel) {
      extent_w = std::max(extent_w, 1.0);
      extent_h = std::max(extent_h, 1.0);
    }
    const double bin_h = extent_h / static_cast<double>(out_h);
    const double bin_w = extent_w / static_cast<double>(out_w);
    const int64_t grid_h = a.sampling_ratio > 0 ? a.sampling_ratio
                                                : static_cast<int64_t>(std::ceil(bin_h));
    const int64_t grid_w = a.sampling_ratio > 0 ? a.sampling_ratio
                                                : static_cast<int64_t>(std::ceil(bin_w));
    // Distance between the samples of one bin.
    const double step_h = bin_h / static_cast<double>(grid_h);
    const double step_w = bin_w / static_cast<double>(grid_w);
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    const T* image = x + batch_indices[r] * p.c * plane;
    T* out = y + r * p.c * out_h * out_w;
    for (int64_t c = 0; c < p.c; ++c) {
      const T* channel = image + c * plane;
      for (int64_t ph = 0; ph < out_h; ++ph) {
        for (int64_t pw = 0; pw < out_w; ++pw) {
          double value = 0;
          bool first = true;
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            const double sy = start_h + static_cast<double>(ph) * bin_h +
                              (static_cast<double>(iy) + 0.5) * step_h;
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const double sx = start_w + static_cast<double>(pw) * bin_w +
                                (static_cast<double>(ix) + 0.5) * step_w;
              const Sample s = MakeSample(sy, sx, p.h, p.w);
              double sample = 0;
              for (int k = 0; k < 4; ++k) {
                const double v = s.weight[k] * static_cast<double>(math::Load(channel[s.at[k]]));
                sample = a.max_mode ? (k == 0 ? v : std::max(sample, v)) : sample + v;
              }
              value = a.max_mode ? (first ? sample : std::max(value, sample)) : value + sample;
              first = false;
            }
          }
          if (!a.max_mode) value /= count;
          out[(c * out_h + ph) * out_w + pw] = math::Store<T>(static_cast<math::Compute<T>>(value));
        }
      }
    }
  }
}

}  // namespace

Result<RoiAlignPlan> PrepareRoiAlign(DataType dtype, std::span<const int64_t> x_shape,
                                     std::span<const int64_t> rois_shape,
                                     std::span<const int64_t> batch_indices_shape,
                                     const RoiAlignAttributes& attributes) {
  if (x_shape.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, "RoiAlign: X has shape ",
                      ShapeToString(Shape(x_shape.begin(), x_shape.end())),
                      "; expected [N, C, H, W]");
  }
  if (rois_shape.size() != 2 || rois_shape[1] != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, "RoiAlign: rois has shape ",
                      ShapeToString(Shape(rois_shape.begin(), rois_shape.end())),
                      "; expected [num_rois, 4] of (x1, y1, x2, y2)");
  }
  if (batch_indices_shape.size() != 1 || batch_indices_shape[0] != rois_shape[0]) {
    return MakeStatus(StatusCode::kInvalidArgument, "RoiAlign: batch_indices has shape ",
                      ShapeToString(Shape(batch_indices_shape.begin(), batch_indices_shape.end())),
                      "; expected [", rois_shape[0], "], one index per roi");
  }
  RoiAlignPlan p;
  p.attributes = attributes;
  p.n = x_shape[0];
  p.c = x_shape[1];
  p.h = x_shape[2];
  p.w = x_shape[3];
  p.rois = rois_shape[0];
  p.output_shape = {p.rois, p.c, attributes.output_height, attributes.output_width};
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypesBf16>(
      dtype, "RoiAlign", [&](auto tag) { p.fn = &RoiAlignTyped<typename decltype(tag)::type>; }));
  return p;
}

Status CheckRoiBatchIndices(const RoiAlignPlan& plan, const int64_t* batch_indices) {
  for (int64_t r = 0; r < plan.rois; ++r) {
    if (batch_indices[r] < 0 || batch_indices[r] >= plan.n) {
      return MakeStatus(StatusCode::kRuntimeError, "RoiAlign: batch_indices[", r, "] is ",
                        batch_indices[r], " but X has ", plan.n, " images; use [0, ", plan.n,
                        ")");
    }
  }
  return Status::Ok();
}

void RoiAlign(const RoiAlignPlan& plan, const void* x, const void* rois,
              const int64_t* batch_indices, void* y, int64_t begin, int64_t end) {
  plan.fn(plan, x, rois, batch_indices, y, begin, end);
}

}  // namespace nxrt::cpu::nn
