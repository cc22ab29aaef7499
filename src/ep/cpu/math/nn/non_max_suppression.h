// ep/cpu/math/nn/non_max_suppression.h: NonMaxSuppression (ONNX opsets 10, 11;
// onnx/defs/object_detection/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). For each batch and class, boxes whose
// score exceeds score_threshold are taken by score descending (ties: lower box index first); a box
// is selected unless its IoU with an already selected box of that class exceeds iou_threshold,
// until max_output_boxes_per_class are selected. Results are ordered by batch, class, then
// selection order, as [batch_index, class_index, box_index] triples.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "nxrt/status.h"

namespace nxrt::cpu::nn {

struct NmsParameters {
  int64_t batches = 0;
  int64_t classes = 0;
  int64_t boxes = 0;            // spatial_dimension
  bool center_point_box = false;  // boxes as [x_center, y_center, width, height]; else corners
  int64_t max_output_boxes_per_class = 0;
  float iou_threshold = 0;
  bool has_score_threshold = false;
  float score_threshold = 0;
};

// Checks boxes [batches, boxes, 4] and scores [batches, classes, boxes] and fills the sizes of
// `p`. Errors (kInvalidArgument) print both shapes.
Status CheckNmsShapes(std::span<const int64_t> boxes_shape, std::span<const int64_t> scores_shape,
                      NmsParameters& p);

// Runs the selection over float boxes and scores; returns the selected triples.
std::vector<std::array<int64_t, 3>> NonMaxSuppression(const NmsParameters& p, const float* boxes,
                                                      const float* scores);

}  // namespace nxrt::cpu::nn
