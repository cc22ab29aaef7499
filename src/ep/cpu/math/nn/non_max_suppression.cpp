// ep/cpu/math/nn/non_max_suppression.cpp: NonMaxSuppression (see non_max_suppression.h).
#include "ep/cpu/math/nn/non_max_suppression.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "nxrt/tensor.h"

namespace nxrt::cpu::nn {
namespace {

// A box as its corners, min before max on each axis.
struct Corners {
  float y1, x1, y2, x2;
};

Corners ToCorners(const float* b, bool center_point_box) {
  if (center_point_box) {
    const float half_w = b[2] / 2, half_h = b[3] / 2;
    return {b[1] - half_h, b[0] - half_w, b[1] + half_h, b[0] + half_w};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]),
          std::max(b[1], b[3])};
}

float Iou(const Corners& a, const Corners& b) {
  const float ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (ih <= 0 || iw <= 0) return 0;
  const float inter = ih * iw;
  const float uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return uni > 0 ? inter / uni : 0;
}

}  // namespace

Status CheckNmsShapes(std::span<const int64_t> boxes_shape, std::span<const int64_t> scores_shape,
                      NmsParameters& p) {
  if (boxes_shape.size() != 3 || boxes_shape[2] != 4 || scores_shape.size() != 3 ||
      scores_shape[0] != boxes_shape[0] || scores_shape[2] != boxes_shape[1]) {
    return MakeStatus(StatusCode::kInvalidArgument, "boxes ",
                      ShapeToString(Shape(boxes_shape.begin(), boxes_shape.end())), " and scores ",
                      ShapeToString(Shape(scores_shape.begin(), scores_shape.end())),
                      " do not fit [batches, boxes, 4] and [batches, classes, boxes]");
  }
  p.batches = boxes_shape[0];
  p.boxes = boxes_shape[1];
  p.classes = scores_shape[1];
  return Status::Ok();
}

std::vector<std::array<int64_t, 3>> NonMaxSuppression(const NmsParameters& p, const float* boxes,
                                                      const float* scores) {
  std::vector<std::array<int64_t, 3>> selected;
  if (p.max_output_boxes_per_class <= 0) return selected;
  std::vector<int64_t> order;
  std::vector<Corners> kept;
  for (int64_t b = 0; b < p.batches; ++b) {
    const float* batch_boxes = boxes + b * p.boxes * 4;
    for (int64_t c = 0; c < p.classes; ++c) {
      const float* s = scores + (b * p.classes + c) * p.boxes;
      order.clear();
      for (int64_t i = 0; i < p.boxes; ++i) {
        if (!p.has_score_threshold || s[i] > p.score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [s](int64_t x, int64_t y) { return s[x] > s[y]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= p.max_output_boxes_per_class) break;
        const Corners box = ToCorners(batch_boxes + i * 4, p.center_point_box);
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](const Corners& k) {
          return Iou(k, box) > p.iou_threshold;
        });
        if (suppressed) continue;
        kept.push_back(box);
        selected.push_back({b, c, i});
      }
    }
  }
  return selected;
}

}  // namespace nxrt::cpu::nn
