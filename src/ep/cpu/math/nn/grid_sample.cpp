// ep/cpu/math/nn/grid_sample.cpp: GridSample (see grid_sample.h).
#include "ep/cpu/math/nn/grid_sample.h"

#include <algorithm>
#include <cmath>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::nn {
namespace {

double Denormalize(double g, int64_t size, bool align_corners) {
  return align_corners ? (g + 1) / 2 * static_cast<double>(size - 1)
                       : ((g + 1) * static_cast<double>(size) - 1) / 2;
}

// Reflects x into [lo, hi] (repeatedly, as a mirror at each border).
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x;
    const int64_t n = static_cast<int64_t>(dx / range);
    const double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const int64_t n = static_cast<int64_t>(dx / range);
    const double r = dx - static_cast<double>(n) * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

// Cubic convolution weights of the four neighbours at offsets -1, 0, 1, 2 for fraction t.
void CubicWeights(double t, double w[4]) {
  constexpr double a = -0.75;
  const double t1 = t + 1, t2 = 1 - t;
  w[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
  w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  w[2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
  w[3] = 1 - w[0] - w[1] - w[2];
}

template <typename T>
void GridSampleTyped(const GridSamplePlan& p, const void* x_raw, const void* grid_raw,
                     void* y_raw) {
  const T* x = static_cast<const T*>(x_raw);
  const T* grid = static_cast<const T*>(grid_raw);
  T* y = static_cast<T*>(y_raw);
  const double lo_x = p.align_corners ? 0 : -0.5, lo_y = lo_x;
  const double hi_x = p.align_corners ? static_cast<double>(p.w - 1) : static_cast<double>(p.w) - 0.5;
  const double hi_y = p.align_corners ? static_cast<double>(p.h - 1) : static_cast<double>(p.h) - 0.5;
  // The pixel at integer (r, c) of one channel image, per the padding mode.
  const auto pixel = [&](const T* image, int64_t r, int64_t c) -> double {
    switch (p.padding) {
      case GridPadding::kZeros:
        if (r < 0 || r >= p.h || c < 0 || c >= p.w) return 0.0;
        break;
      case GridPadding::kBorder:
        r = std::clamp<int64_t>(r, 0, p.h - 1);
        c = std::clamp<int64_t>(c, 0, p.w - 1);
        break;
      case GridPadding::kReflection:
        r = std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(r), lo_y, hi_y)),
                                0, p.h - 1);
        c = std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(c), lo_x, hi_x)),
                                0, p.w - 1);
        break;
    }
    return static_cast<double>(math::Load(image[r * p.w + c]));
  };
  const int64_t out_pixels = p.out_h * p.out_w;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t o = 0; o < out_pixels; ++o) {
      const T* g = grid + (n * out_pixels + o) * 2;
      double cx = Denormalize(static_cast<double>(math::Load(g[0])), p.w, p.align_corners);
      double cy = Denormalize(static_cast<double>(math::Load(g[1])), p.h, p.align_corners);
      if (p.mode != GridSampleMode::kBicubic) {
        if (p.padding == GridPadding::kBorder) {
          cx = std::clamp(cx, 0.0, static_cast<double>(p.w - 1));
          cy = std::clamp(cy, 0.0, static_cast<double>(p.h - 1));
        } else if (p.padding == GridPadding::kReflection) {
          cx = Reflect(cx, lo_x, hi_x);
          cy = Reflect(cy, lo_y, hi_y);
        }
      }
      for (int64_t c = 0; c < p.c; ++c) {
        const T* image = x + (n * p.c + c) * p.h * p.w;
        double value = 0;
        if (p.mode == GridSampleMode::kNearest) {
          value = pixel(image, static_cast<int64_t>(std::nearbyint(cy)),
                        static_cast<int64_t>(std::nearbyint(cx)));
        } else if (p.mode == GridSampleMode::kBilinear) {
          const double fx = std::floor(cx), fy = std::floor(cy);
          const double tx = cx - fx, ty = cy - fy;
          const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
          value = (1 - ty) * ((1 - tx) * pixel(image, y0, x0) + tx * pixel(image, y0, x0 + 1)) +
                  ty * ((1 - tx) * pixel(image, y0 + 1, x0) + tx * pixel(image, y0 + 1, x0 + 1));
        } else {
          const double fx = std::floor(cx), fy = std::floor(cy);
          double wx[4], wy[4];
          CubicWeights(cx - fx, wx);
          CubicWeights(cy - fy, wy);
          const int64_t x0 = static_cast<int64_t>(fx) - 1, y0 = static_cast<int64_t>(fy) - 1;
          for (int i = 0; i < 4; ++i) {
            double row = 0;
            for (int j = 0; j < 4; ++j) row += wx[j] * pixel(image, y0 + i, x0 + j);
            value += wy[i] * row;
          }
        }
        y[(n * p.c + c) * out_pixels + o] = math::Store<T>(static_cast<math::Compute<T>>(value));
      }
    }
  }
}

}  // namespace

Result<GridSamplePlan> PrepareGridSample(DataType dtype, std::span<const int64_t> x_shape,
                                         std::span<const int64_t> grid_shape,
                                         GridSampleMode mode, GridPadding padding,
                                         bool align_corners) {
  if (x_shape.size() != 4 || grid_shape.size() != 4 || grid_shape[0] != x_shape[0] ||
      grid_shape[3] != 2) {
    return MakeStatus(StatusCode::kInvalidArgument, "X ",
                      ShapeToString(Shape(x_shape.begin(), x_shape.end())), " and grid ",
                      ShapeToString(Shape(grid_shape.begin(), grid_shape.end())),
                      " do not fit [N, C, H, W] and [N, H_out, W_out, 2]");
  }
  GridSamplePlan p;
  p.mode = mode;
  p.padding = padding;
  p.align_corners = align_corners;
  p.n = x_shape[0];
  p.c = x_shape[1];
  p.h = x_shape[2];
  p.w = x_shape[3];
  p.out_h = grid_shape[1];
  p.out_w = grid_shape[2];
  p.output_shape = {p.n, p.c, p.out_h, p.out_w};
  using Types = math::TypeList<float, double, Float16>;
  NXRT_RETURN_IF_ERROR(math::DispatchType<Types>(dtype, "GridSample", [&](auto tag) {
    p.fn = &GridSampleTyped<typename decltype(tag)::type>;
  }));
  return p;
}

void GridSample(const GridSamplePlan& plan, const void* x, const void* grid, void* y) {
  plan.fn(plan, x, grid, y);
}

}  // namespace nxrt::cpu::nn
