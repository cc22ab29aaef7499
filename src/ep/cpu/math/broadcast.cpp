// ep/cpu/math/broadcast.cpp: broadcast shapes and the collapsed broadcast iteration geometry.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP).
#include "ep/cpu/math/broadcast.h"

#include <algorithm>

namespace nxrt::cpu::math {
namespace {

std::string ShapesList(std::span<const Shape> shapes) {
  std::string list;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) list += i + 1 == shapes.size() ? " with " : ", ";
    list += ShapeToString(shapes[i]);
  }
  return list;
}

}  // namespace

Result<Shape> BroadcastShapes(std::string_view op, std::span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  // Tracks which shape set out[i] to a non-1 value, for the message.
  std::vector<size_t> setter(rank, 0);
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Shape& s = shapes[k];
    for (size_t j = 0; j < s.size(); ++j) {
      const size_t i = rank - s.size() + j;
      const int64_t dim = s[j];
      if (dim < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, op, ": input shape ", ShapeToString(s),
                          " has a negative dim");
      }
      if (dim == 1 || dim == out[i]) continue;
      if (out[i] == 1) {
        out[i] = dim;
        setter[i] = k;
        continue;
      }
      return MakeStatus(StatusCode::kInvalidArgument, op, ": cannot broadcast ",
                        ShapesList(shapes), " (dim ", static_cast<int64_t>(i) - static_cast<int64_t>(rank),
                        ": ", out[i], " vs ", dim, ")");
    }
  }
  return out;
}

Result<Shape> BroadcastShapes(std::string_view op, const Shape& a, const Shape& b) {
  const Shape shapes[] = {a, b};
  return BroadcastShapes(op, std::span<const Shape>(shapes));
}

Result<BroadcastGeometry> MakeBroadcastGeometry(std::string_view op, const Shape& output_shape,
                                                std::span<const Shape> input_shapes) {
  const size_t rank = output_shape.size();
  const size_t num_inputs = input_shapes.size();
  // Per-input strides aligned to the output rank (0 on broadcast dims).
  std::vector<std::vector<int64_t>> full(num_inputs, std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < num_inputs; ++k) {
    const Shape& s = input_shapes[k];
    if (s.size() > rank) {
      return MakeStatus(StatusCode::kInvalidArgument, op, ": cannot broadcast input shape ",
                        ShapeToString(s), " to output shape ", ShapeToString(output_shape));
    }
    int64_t stride = 1;
    for (size_t j = s.size(); j-- > 0;) {
      const size_t i = rank - s.size() + j;
      if (s[j] == output_shape[i]) {
        full[k][i] = s[j] == 1 ? 0 : stride;
      } else if (s[j] != 1) {
        return MakeStatus(StatusCode::kInvalidArgument, op, ": cannot broadcast input shape ",
                          ShapeToString(s), " to output shape ", ShapeToString(output_shape),
                          " (dim ", static_cast<int64_t>(j) - static_cast<int64_t>(s.size()),
                          ": ", s[j], " vs ", output_shape[i], ")");
      }
      stride *= s[j];
    }
  }

  BroadcastGeometry g;
  NXRT_ASSIGN_OR_RETURN(g.output_count, ElementCount(output_shape));
  g.strides.assign(num_inputs, {});
  // Collapse from the innermost dim outwards: dim i merges into the current innermost group when
  // for every input stride[i] == group stride * group dim.
  for (size_t i = rank; i-- > 0;) {
    const int64_t dim = output_shape[i];
    if (dim == 1) continue;
    bool merge = !g.dims.empty();
    for (size_t k = 0; merge && k < num_inputs; ++k) {
      merge = full[k][i] == g.strides[k].back() * g.dims.back();
    }
    if (merge) {
      g.dims.back() *= dim;
      continue;
    }
    g.dims.push_back(dim);
    for (size_t k = 0; k < num_inputs; ++k) g.strides[k].push_back(full[k][i]);
  }
  if (g.dims.empty()) {
    g.dims.push_back(1);
    for (size_t k = 0; k < num_inputs; ++k) g.strides[k].push_back(0);
  }
  std::reverse(g.dims.begin(), g.dims.end());
  for (auto& s : g.strides) std::reverse(s.begin(), s.end());
  return g;
}

}  // namespace nxrt::cpu::math
