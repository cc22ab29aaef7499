// ep/cpu/math/nn/einsum.cpp: Einsum (see einsum.h).
#include "ep/cpu/math/nn/einsum.h"

#include <algorithm>
#include <array>
#include <string>

#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::math {
namespace {

constexpr int kLetters = 52;
// Compute keeps its per-input offsets and per-label indices in fixed arrays (it must not
// allocate); Prepare rejects equations beyond them.
constexpr size_t kEinsumMaxInputs = 64, kEinsumMaxLabels = 128;
// The schema's T: every numeric type but bfloat16.
using EinsumTypes = Concat<TypeList<float, double, Float16>, IntTypes>;

int LetterLabel(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -2;
}

char LabelLetter(int label) {
  return static_cast<char>(label < 26 ? 'a' + label : 'A' + (label - 26));
}

// One term of `text` (already stripped of whitespace); `what` names it in errors.
Result<std::vector<int>> ParseTerm(std::string_view text, std::string_view what) {
  std::vector<int> labels;
  bool ellipsis = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.') {
      if (text.substr(i, 3) != "..." || ellipsis) {
        return MakeStatus(StatusCode::kInvalidArgument, "Einsum: ", what, " '", text,
                          "' has a '.' that is not part of its one \"...\"");
      }
      ellipsis = true;
      labels.push_back(EinsumEquation::kEllipsisLabel);
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    if (label < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "Einsum: ", what, " '", text,
                        "' has the character '", text[i], "'; labels are letters a-z, A-Z");
    }
    labels.push_back(label);
  }
  return labels;
}

// Wraps for integers, accumulates in double for floating types.
template <typename T>
using Accumulator = std::conditional_t<kIsFloating<T>, double, T>;

template <typename T>
void EinsumTyped(const EinsumPlan& p, std::span<const void* const> inputs, void* output,
                 int64_t begin, int64_t end) {
  using Acc = Accumulator<T>;
  const size_t n_in = inputs.size();
  const size_t n_out = p.output_sizes.size(), n_sum = p.sum_sizes.size();
  int64_t sum_count = 1;
  for (int64_t s : p.sum_sizes) sum_count *= s;
  T* y = static_cast<T*>(output);
  std::array<int64_t, kEinsumMaxInputs> offset{};
  std::array<int64_t, kEinsumMaxLabels> index{};
  for (int64_t o = begin; o < end; ++o) {
    for (size_t i = 0; i < n_in; ++i) offset[i] = 0;
    int64_t rest = o;
    for (size_t k = n_out; k-- > 0;) {
      const int64_t v = rest % p.output_sizes[k];
      rest /= p.output_sizes[k];
      for (size_t i = 0; i < n_in; ++i) offset[i] += v * p.output_strides[i][k];
    }
    Acc acc = Acc(0);
    for (size_t k = 0; k < n_sum; ++k) index[k] = 0;
    for (int64_t r = 0; r < sum_count; ++r) {
      Acc product = Acc(1);
      for (size_t i = 0; i < n_in; ++i) {
        const Acc v = static_cast<Acc>(Load(static_cast<const T*>(inputs[i])[offset[i]]));
        if constexpr (kIsFloating<T>) {
          product *= v;
        } else {
          product = WrapMul(product, v);
        }
      }
      if constexpr (kIsFloating<T>) {
        acc += product;
      } else {
        acc = WrapAdd(acc, product);
      }
      // Odometer over the summed labels, innermost last.
      for (size_t k = n_sum; k-- > 0;) {
        if (++index[k] < p.sum_sizes[k]) {
          for (size_t i = 0; i < n_in; ++i) offset[i] += p.sum_strides[i][k];
          break;
        }
        index[k] = 0;
        for (size_t i = 0; i < n_in; ++i) offset[i] -= (p.sum_sizes[k] - 1) * p.sum_strides[i][k];
      }
    }
    y[o] = Store<T>(static_cast<Compute<T>>(acc));
  }
}

std::string TermText(const std::vector<int>& term) {
  std::string s;
  for (int label : term) {
    s += label == EinsumEquation::kEllipsisLabel ? std::string("...")
                                                 : std::string(1, LabelLetter(label));
  }
  return s;
}

}  // namespace

Result<EinsumEquation> ParseEinsum(std::string_view equation) {
  std::string text;
  for (char c : equation) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') text += c;
  }
  EinsumEquation eq;
  const size_t arrow = text.find("->");
  if (arrow != std::string::npos && text.find("->", arrow + 2) != std::string::npos) {
    return MakeStatus(StatusCode::kInvalidArgument, "Einsum: equation '", equation,
                      "' has several \"->\"; use at most one");
  }
  const std::string lhs = text.substr(0, arrow);
  for (size_t start = 0, term = 0;; ++term) {
    const size_t comma = lhs.find(',', start);
    const std::string what = "input term " + std::to_string(term);
    NXRT_ASSIGN_OR_RETURN(std::vector<int> labels,
                          ParseTerm(std::string_view(lhs).substr(start, comma - start), what));
    eq.inputs.push_back(std::move(labels));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow == std::string::npos) return eq;
  eq.explicit_output = true;
  NXRT_ASSIGN_OR_RETURN(eq.output,
                        ParseTerm(std::string_view(text).substr(arrow + 2), "the output term"));
  std::array<bool, kLetters> seen{}, in_inputs{};
  for (const auto& term : eq.inputs) {
    for (int label : term) {
      if (label >= 0) in_inputs[label] = true;
    }
  }
  for (int label : eq.output) {
    if (label < 0) continue;
    if (seen[label] || !in_inputs[label]) {
      return MakeStatus(StatusCode::kInvalidArgument, "Einsum: output letter '", LabelLetter(label),
                        "' of equation '", equation, "' ",
                        seen[label] ? "is repeated" : "is in no input term",
                        "; each output letter must occur once and come from an input");
    }
    seen[label] = true;
  }
  return eq;
}

Result<EinsumPlan> PrepareEinsum(DataType dtype, const EinsumEquation& eq,
                                 std::span<const Shape> shapes) {
  if (eq.inputs.size() != shapes.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, "Einsum: the equation has ", eq.inputs.size(),
                      " input terms but the node has ", shapes.size(),
                      " inputs; give one term per input");
  }
  if (shapes.size() > kEinsumMaxInputs) {
    return MakeStatus(StatusCode::kUnsupported, "Einsum: ", shapes.size(),
                      " inputs; this kernel takes at most ", kEinsumMaxInputs);
  }
  // Global labels: the 52 letters, then the broadcast "..." dims (right-aligned).
  size_t ellipsis_rank = 0;
  std::vector<size_t> term_ellipsis(shapes.size(), 0);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& term = eq.inputs[i];
    const bool has_ellipsis =
        std::count(term.begin(), term.end(), EinsumEquation::kEllipsisLabel) > 0;
    const size_t letters = term.size() - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? shapes[i].size() < letters : shapes[i].size() != letters) {
      return MakeStatus(StatusCode::kInvalidArgument, "Einsum: term '", TermText(term),
                        "' names ", letters, " dims but input ", i, " has shape ",
                        ShapeToString(shapes[i]),
                        has_ellipsis ? "; the input needs at least that rank"
                                     : "; match the term to the rank or add \"...\"");
    }
    term_ellipsis[i] = shapes[i].size() - letters;
    ellipsis_rank = std::max(ellipsis_rank, term_ellipsis[i]);
  }
  const size_t label_count = kLetters + ellipsis_rank;
  if (label_count > kEinsumMaxLabels) {
    return MakeStatus(StatusCode::kUnsupported, "Einsum: \"...\" stands for ", ellipsis_rank,
                      " dims; this kernel takes at most ", kEinsumMaxLabels - kLetters);
  }
  std::vector<int64_t> size(label_count, -1);
  std::vector<int> occurrences(label_count, 0);
  // strides[i][label]: input i's element stride for the label (0 when absent or broadcast).
  std::vector<std::vector<int64_t>> strides(shapes.size(), std::vector<int64_t>(label_count, 0));
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape& shape = shapes[i];
    std::vector<int64_t> dim_stride(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) dim_stride[d - 1] = dim_stride[d] * shape[d];
    std::vector<size_t> dim_label;
    for (int label : eq.inputs[i]) {
      if (label != EinsumEquation::kEllipsisLabel) {
        dim_label.push_back(static_cast<size_t>(label));
        continue;
      }
      for (size_t j = 0; j < term_ellipsis[i]; ++j) {
        dim_label.push_back(kLetters + ellipsis_rank - term_ellipsis[i] + j);
      }
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      const size_t label = dim_label[d];
      ++occurrences[label];
      const bool broadcast = label >= kLetters;
      if (size[label] < 0 || (broadcast && size[label] == 1)) {
        size[label] = shape[d];
      } else if (shape[d] != size[label] && !(broadcast && shape[d] == 1)) {
        const std::string what =
            broadcast ? std::string("a \"...\" dim")
                      : "letter '" + std::string(1, LabelLetter(static_cast<int>(label))) + "'";
        return MakeStatus(StatusCode::kInvalidArgument, "Einsum: ", what, " of input ", i,
                          " (shape ", ShapeToString(shape), ") has size ", shape[d], " but ",
                          size[label], " elsewhere",
                          broadcast ? "; \"...\" dims must be equal or 1" : "; sizes must agree");
      }
      // A size-1 dim never advances, which is also what broadcasting it needs.
      if (shape[d] != 1) strides[i][label] += dim_stride[d];
    }
  }

  std::vector<size_t> output_labels;
  std::vector<bool> in_output(label_count, false);
  const auto add_output = [&](size_t label) {
    output_labels.push_back(label);
    in_output[label] = true;
  };
  if (eq.explicit_output) {
    const bool output_ellipsis = std::count(eq.output.begin(), eq.output.end(),
                                            EinsumEquation::kEllipsisLabel) > 0;
    if (ellipsis_rank > 0 && !output_ellipsis) {
      return MakeStatus(StatusCode::kInvalidArgument, "Einsum: the inputs' \"...\" stand for ",
                        ellipsis_rank, " dims but the output term '", TermText(eq.output),
                        "' has no \"...\"; add it to the output (as NumPy requires)");
    }
    for (int label : eq.output) {
      if (label != EinsumEquation::kEllipsisLabel) {
        add_output(static_cast<size_t>(label));
      } else {
        for (size_t j = 0; j < ellipsis_rank; ++j) add_output(kLetters + j);
      }
    }
  } else {
    for (size_t j = 0; j < ellipsis_rank; ++j) add_output(kLetters + j);
    // ASCII order: 'A'-'Z' (labels 26-51) before 'a'-'z' (0-25).
    for (size_t k = 0; k < kLetters; ++k) {
      const size_t label = (k + 26) % kLetters;
      if (occurrences[label] == 1) add_output(label);
    }
  }

  EinsumPlan p;
  p.output_strides.resize(shapes.size());
  p.sum_strides.resize(shapes.size());
  p.output_count = 1;
  for (size_t label : output_labels) {
    p.output_shape.push_back(size[label]);
    p.output_sizes.push_back(size[label]);
    p.output_count *= size[label];
    for (size_t i = 0; i < shapes.size(); ++i) p.output_strides[i].push_back(strides[i][label]);
  }
  for (size_t label = 0; label < label_count; ++label) {
    if (in_output[label] || occurrences[label] == 0) continue;
    p.sum_sizes.push_back(size[label]);
    for (size_t i = 0; i < shapes.size(); ++i) p.sum_strides[i].push_back(strides[i][label]);
  }
  NXRT_RETURN_IF_ERROR(DispatchType<EinsumTypes>(dtype, "Einsum", [&](auto tag) {
    p.fn = &EinsumTyped<typename decltype(tag)::type>;
  }));
  return p;
}

void Einsum(const EinsumPlan& plan, std::span<const void* const> inputs, void* output,
            int64_t begin, int64_t end) {
  plan.fn(plan, inputs, output, begin, end);
}

}  // namespace nxrt::cpu::math
