// ep/cpu/math/tensor/pad.cpp: Pad. Layer: nxrt_cpu_math.
#include "ep/cpu/math/tensor/pad.h"

#include <algorithm>

#include "ep/cpu/math/nn_common.h"

namespace nxrt::cpu::nn {

Result<PadMode> ParsePadMode(std::string_view mode) {
  if (mode == "constant") return PadMode::kConstant;
  if (mode == "reflect") return PadMode::kReflect;
  if (mode == "edge") return PadMode::kEdge;
  if (mode == "wrap") return PadMode::kWrap;
  return MakeStatus(StatusCode::kInvalidArgument, "Pad: mode '", mode,
                    "' is not supported (expected constant, reflect, edge or wrap)");
}

namespace {

int64_t PositiveMod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

// Index into an axis of length `len` for the position `j` (may be outside [0, len)).
int64_t MapIndex(PadMode mode, int64_t j, int64_t len) {
  if (j >= 0 && j < len) return j;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return j < 0 ? 0 : len - 1;
    case PadMode::kWrap:
      return PositiveMod(j, len);
    case PadMode::kReflect: {
      if (len == 1) return 0;
      const int64_t m = PositiveMod(j, 2 * (len - 1));
      return m < len ? m : 2 * (len - 1) - m;
    }
  }
  return -1;
}

}  // namespace

Result<PadPlan> PreparePad(DataType dtype, std::span<const int64_t> input_shape,
                           std::span<const int64_t> pads, std::span<const int64_t> axes,
                           PadMode mode) {
  NXRT_RETURN_IF_ERROR(CheckDataType("Pad", dtype));
  NXRT_RETURN_IF_ERROR(CheckShape("Pad", "input", input_shape));
  const int64_t rank = static_cast<int64_t>(input_shape.size());
  const size_t n = axes.empty() ? input_shape.size() : axes.size();
  if (pads.size() != 2 * n) {
    return MakeStatus(StatusCode::kInvalidArgument, "Pad: pads ", Str(pads), " has ", pads.size(),
                      " entries, expected ", 2 * n, " (begin and end for ", n, " axes of input ",
                      Str(input_shape), ")");
  }
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  for (size_t i = 0; i < n; ++i) {
    NXRT_ASSIGN_OR_RETURN(
        const int64_t a,
        NormalizeAxis("Pad", axes.empty() ? static_cast<int64_t>(i) : axes[i], rank));
    begin[a] = pads[i];
    end[a] = pads[n + i];
  }
  PadPlan plan;
  plan.dtype = dtype;
  plan.input_shape.assign(input_shape.begin(), input_shape.end());
  // Per axis: the first input index kept, how many are kept, and the begin pad.
  std::vector<int64_t> kept_from(rank), kept(rank), pad_begin(rank);
  for (int64_t a = 0; a < rank; ++a) {
    const int64_t dim = input_shape[a];
    int64_t out = 0;
    if (__builtin_add_overflow(dim, begin[a], &out) || __builtin_add_overflow(out, end[a], &out)) {
      return MakeStatus(StatusCode::kOutOfMemory, "Pad: cannot allocate the output: axis ", a,
                        " of input ", Str(input_shape), " with pads ", Str(pads),
                        " overflows int64");
    }
    const int64_t lo = std::max<int64_t>(0, -begin[a]);
    const int64_t len = dim - lo - std::max<int64_t>(0, -end[a]);
    if (out < 0 || len < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Pad: pads ", Str(pads),
                        " remove more than the ", dim, " elements of axis ", a, " of input ",
                        Str(input_shape));
    }
    const int64_t pb = std::max<int64_t>(0, begin[a]);
    if (mode != PadMode::kConstant && len == 0 && out > 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Pad: cannot pad axis ", a, " of input ",
                        Str(input_shape), " in a non-constant mode: it has no elements to repeat");
    }
    const int64_t pe = std::max<int64_t>(0, end[a]);
    if (mode == PadMode::kReflect && (pb > 0 || pe > 0)) {
      // A reflection repeats no edge element, so it reaches at most len - 1 elements out (ONNX
      // Runtime 1.30 refuses more, and a slice to fewer than 2 elements, with these words).
      if (len < 2) {
        return MakeStatus(StatusCode::kInvalidArgument, "Pad: reflect requires axis length >= 2 "
                          "after slicing; axis ", a, " of input ", Str(input_shape), " has ", len,
                          " with pads ", Str(pads));
      }
      if (pb > len - 1 || pe > len - 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "Pad: reflect ",
                          pb > len - 1 ? "pre-pad " : "post-pad ", pb > len - 1 ? pb : pe,
                          " exceeds the maximum ", len - 1, " (axis length - 1) for axis ", a,
                          " of input ", Str(input_shape));
      }
    }
    plan.output_shape.push_back(out);
    kept_from[a] = lo;
    kept[a] = len;
    pad_begin[a] = pb;
  }
  // The output must be possible before the index maps are built: a map has an entry per output
  // index of its axis, so the maps of an output too large to hold would not fit either.
  const Result<int64_t> count = ElementCount(plan.output_shape);
  int64_t bytes = 0;
  if (!count.ok() || __builtin_mul_overflow(*count, static_cast<int64_t>(DataTypeSize(dtype)),
                                            &bytes)) {
    return MakeStatus(StatusCode::kOutOfMemory, "Pad: cannot allocate the output ",
                      DataTypeName(dtype), Str(plan.output_shape), ": its byte size overflows");
  }
  if (*count == 0) return plan;  // nothing to write, so no maps
  for (int64_t a = 0; a < rank; ++a) {
    std::vector<int64_t> map(plan.output_shape[a]);
    for (int64_t o = 0; o < plan.output_shape[a]; ++o) {
      const int64_t j = MapIndex(mode, o - pad_begin[a], kept[a]);
      map[o] = j < 0 ? -1 : kept_from[a] + j;
    }
    plan.maps.push_back(std::move(map));
  }
  return plan;
}

Status Pad(const PadPlan& plan, const void* input, const void* constant_value, void* output) {
  if (plan.maps.size() != plan.output_shape.size()) return Status::Ok();  // an empty output
  GatherByAxisMaps(plan.dtype, plan.input_shape, input, plan.maps, constant_value, output);
  return Status::Ok();
}

}  // namespace nxrt::cpu::nn
