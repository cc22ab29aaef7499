// ep/cpu/math/nn/einsum.h: Einsum (ONNX opset 12; onnx/defs/math/defs.cc) for the CPU EP.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). An equation is
// "term,term,...[->output]": one term per input, each a string of letters [a-zA-Z] (one label
// per dim) with at most one "..." standing for the dims the letters do not name. Whitespace is
// ignored. Semantics (NumPy's einsum, which the ONNX spec follows):
//   - every label has one size: a letter's dims must agree across and within terms; a letter
//     repeated in one term reads that input's diagonal;
//   - the "..." dims of all inputs broadcast together, right-aligned (size 1 stretches);
//   - the output is the explicit term after "->" (letters unique; "..." places the broadcast
//     dims and is required when they are not empty), or implicitly the "..." dims followed by the
//     letters that occur exactly once in the equation, in ASCII order (uppercase first);
//   - each output element is the sum, over every value of the labels not in the output, of the
//     product of the inputs' elements (an empty sum is 0).
// Accumulation: double for the floating types (float16 loads as float), wrapping two's
// complement arithmetic in the element type for the integers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

// A parsed equation. Labels: 0-25 'a'-'z', 26-51 'A'-'Z', kEllipsisLabel for "...".
struct EinsumEquation {
  static constexpr int kEllipsisLabel = -1;
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;  // explicit output term; empty and unused when !explicit_output
  bool explicit_output = false;
};

// Errors (kInvalidArgument, naming the term and the character): a character other than a
// letter, ',', '.', "->" or whitespace; a '.' not part of exactly one "..." per term; several
// "->"; an output letter repeated or absent from every input term.
Result<EinsumEquation> ParseEinsum(std::string_view equation);

struct EinsumPlan {
  Shape output_shape;
  int64_t output_count = 0;
  // The output labels' sizes (row-major) and the summed labels' sizes; per input, the element
  // stride of each output label and of each summed label (0 where the input lacks the label or
  // broadcasts it; the sum of its dims' strides where a letter repeats).
  std::vector<int64_t> output_sizes, sum_sizes;
  std::vector<std::vector<int64_t>> output_strides, sum_strides;
  void (*fn)(const EinsumPlan&, std::span<const void* const> inputs, void* output, int64_t begin,
             int64_t end) = nullptr;
};

// Resolves `equation` against the input shapes. Errors: kInvalidArgument when the term count
// differs from the input count, a term names more or fewer dims than its input has, a letter has
// two sizes, the "..." dims do not broadcast, or an explicit output omits non-empty "..." dims
// (shapes and sizes printed); kUnsupported for a
// dtype other than the numeric types (bfloat16 and bool excluded, as in the schema).
Result<EinsumPlan> PrepareEinsum(DataType dtype, const EinsumEquation& equation,
                                 std::span<const Shape> input_shapes);

// Writes output elements [begin, end) (row-major) from the inputs (contiguous, in the shapes
// Prepare saw). Disjoint ranges may run concurrently.
void Einsum(const EinsumPlan& plan, std::span<const void* const> inputs, void* output,
            int64_t begin, int64_t end);

}  // namespace nxrt::cpu::math
