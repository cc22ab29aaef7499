// ep/cpu/math/nn/max_roi_pool.cpp: MaxRoiPool (see max_roi_pool.h).
#include "ep/cpu/math/nn/max_roi_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::nn {
namespace {

// A scaled corner rounded half away from zero, in T's compute type (float for float16). The
// caller has checked it (CheckMaxRoiPoolRois).
template <typename T>
int64_t Corner(T coordinate, float spatial_scale) {
  using C = math::Compute<T>;
  return static_cast<int64_t>(std::round(math::Load(coordinate) * static_cast<C>(spatial_scale)));
}

// The pixels [begin, end) of output cell `p` along an axis of `size` pixels whose roi starts at
// `start` and is `bin` pixels per cell (float, as ONNX Runtime computes it).
void CellRange(int64_t p, float bin, int64_t start, int64_t size, int64_t& begin, int64_t& end) {
  begin = static_cast<int64_t>(std::floor(static_cast<float>(p) * bin));
  end = static_cast<int64_t>(std::ceil(static_cast<float>(p + 1) * bin));
  begin = std::clamp<int64_t>(begin + start, 0, size);
  end = std::clamp<int64_t>(end + start, 0, size);
}

template <typename T>
void MaxRoiPoolTyped(const MaxRoiPoolPlan& p, const void* x_raw, const void* rois_raw, void* y_raw,
                     int64_t begin, int64_t end) {
  using C = math::Compute<T>;
  const T* x = static_cast<const T*>(x_raw);
  const T* rois = static_cast<const T*>(rois_raw);
  T* y = static_cast<T*>(y_raw);
  const MaxRoiPoolAttributes& a = p.attributes;
  const int64_t out_h = a.pooled_height, out_w = a.pooled_width, plane = p.h * p.w;
  for (int64_t r = begin; r < end; ++r) {
    const T* roi = rois + r * 5;
    const auto batch = static_cast<int64_t>(math::Load(roi[0]));
    const int64_t start_w = Corner(roi[1], a.spatial_scale);
    const int64_t start_h = Corner(roi[2], a.spatial_scale);
    const int64_t roi_w = std::max<int64_t>(Corner(roi[3], a.spatial_scale) - start_w + 1, 1);
    const int64_t roi_h = std::max<int64_t>(Corner(roi[4], a.spatial_scale) - start_h + 1, 1);
    const float bin_h = static_cast<float>(roi_h) / static_cast<float>(out_h);
    const float bin_w = static_cast<float>(roi_w) / static_cast<float>(out_w);
    const T* image = x + batch * p.c * plane;
    T* out = y + r * p.c * out_h * out_w;
    for (int64_t c = 0; c < p.c; ++c) {
      const T* channel = image + c * plane;
      for (int64_t ph = 0; ph < out_h; ++ph) {
        int64_t h0, h1;
        CellRange(ph, bin_h, start_h, p.h, h0, h1);
        for (int64_t pw = 0; pw < out_w; ++pw) {
          int64_t w0, w1;
          CellRange(pw, bin_w, start_w, p.w, w0, w1);
          C best = 0;
          if (h1 > h0 && w1 > w0) {
            best = std::numeric_limits<C>::lowest();
            for (int64_t i = h0; i < h1; ++i) {
              for (int64_t j = w0; j < w1; ++j) {
                best = math::MaxPropagateNan(best, math::Load(channel[i * p.w + j]));
              }
            }
          }
          out[(c * out_h + ph) * out_w + pw] = math::Store<T>(best);
        }
      }
    }
  }
}

template <typename T>
Status CheckRoisTyped(const MaxRoiPoolPlan& p, const void* rois_raw) {
  const T* rois = static_cast<const T*>(rois_raw);
  constexpr double kLimit = 2147483647.0;
  for (int64_t r = 0; r < p.rois; ++r) {
    const T* roi = rois + r * 5;
    const double batch = static_cast<double>(math::Load(roi[0]));
    if (!(batch > -1.0 && batch < static_cast<double>(p.n))) {
      return MakeStatus(StatusCode::kRuntimeError, "MaxRoiPool: rois[", r, "] has batch index ",
                        batch, " but X has ", p.n, " images; use [0, ", p.n, ")");
    }
    for (int k = 1; k < 5; ++k) {
      const double scaled = static_cast<double>(math::Load(roi[k])) * p.attributes.spatial_scale;
      if (!(std::fabs(scaled) <= kLimit)) {
        return MakeStatus(StatusCode::kRuntimeError, "MaxRoiPool: rois[", r, "][", k, "] is ",
                          static_cast<double>(math::Load(roi[k])), ", which scaled by ",
                          p.attributes.spatial_scale,
                          " is not a finite pixel coordinate within the int32 range");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<MaxRoiPoolPlan> PrepareMaxRoiPool(DataType dtype, std::span<const int64_t> x_shape,
                                         std::span<const int64_t> rois_shape,
                                         const MaxRoiPoolAttributes& attributes) {
  if (x_shape.size() != 4) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxRoiPool: X has shape ",
                      ShapeToString(x_shape), "; expected [N, C, H, W]");
  }
  if (rois_shape.size() != 2 || rois_shape[1] != 5) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxRoiPool: rois has shape ",
                      ShapeToString(rois_shape),
                      "; expected [num_rois, 5] of (batch_index, x1, y1, x2, y2)");
  }
  if (attributes.pooled_height < 1 || attributes.pooled_width < 1 ||
      !(attributes.spatial_scale > 0.0f)) {
    return MakeStatus(StatusCode::kInvalidArgument, "MaxRoiPool: pooled_shape [",
                      attributes.pooled_height, ",", attributes.pooled_width,
                      "] and spatial_scale ", attributes.spatial_scale,
                      "; the pooled sizes must be positive and spatial_scale above 0");
  }
  MaxRoiPoolPlan p;
  p.attributes = attributes;
  p.n = x_shape[0];
  p.c = x_shape[1];
  p.h = x_shape[2];
  p.w = x_shape[3];
  p.rois = rois_shape[0];
  p.output_shape = {p.rois, p.c, attributes.pooled_height, attributes.pooled_width};
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypes>(dtype, "MaxRoiPool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    p.fn = &MaxRoiPoolTyped<T>;
    p.check = &CheckRoisTyped<T>;
  }));
  return p;
}

Status CheckMaxRoiPoolRois(const MaxRoiPoolPlan& plan, const void* rois) {
  return plan.check(plan, rois);
}

void MaxRoiPool(const MaxRoiPoolPlan& plan, const void* x, const void* rois, void* y, int64_t begin,
                int64_t end) {
  plan.fn(plan, x, rois, y, begin, end);
}

}  // namespace nxrt::cpu::nn
