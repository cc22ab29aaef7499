// ep/cpu/kernels/nn/einsum_test.cpp: Einsum run as a one-node model against a reference written
// in the test from the ONNX (NumPy) definition: random equations (1-3 inputs, repeated letters,
// "...", explicit and implicit outputs), random shapes, double and integer types; fixed seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using nn::testing::AllClose;
using nn::testing::Count;
using nn::testing::ForEachIndex;
using nn::testing::Offset;
using nn::testing::RandomInt;

// One generated case: per input its letters (' ' marks where "..." sits) and shape.
struct EinsumCase {
  std::vector<std::string> terms;
  std::vector<Shape> shapes;
  std::vector<int64_t> ellipsis_ranks;
  std::string output;  // explicit output term (' ' for "..."); unused when implicit
  bool explicit_output = false;
};

std::string Text(const std::string& term) {
  std::string s;
  for (char c : term) s += c == ' ' ? std::string("...") : std::string(1, c);
  return s;
}

std::string Equation(const EinsumCase& c) {
  std::string eq;
  for (size_t i = 0; i < c.terms.size(); ++i) {
    if (i > 0) eq += ',';
    eq += Text(c.terms[i]);
  }
  if (c.explicit_output) {
    eq += "->";
    eq += Text(c.output);
  }
  return eq;
}

EinsumCase RandomCase(std::mt19937& rng) {
  const std::string pool = "abcdXY";
  std::map<char, int64_t> size;
  for (char l : pool) size[l] = RandomInt(rng, 1, 3);
  const bool ellipsis = RandomInt(rng, 0, 2) == 0;
  const int64_t max_ellipsis = 2;
  const Shape ellipsis_sizes = {RandomInt(rng, 1, 3), RandomInt(rng, 1, 3)};
  EinsumCase c;
  const int64_t inputs = RandomInt(rng, 1, 3);
  for (int64_t i = 0; i < inputs; ++i) {
    std::string term;
    const int64_t letters = RandomInt(rng, 0, 3);
    for (int64_t k = 0; k < letters; ++k) term += pool[RandomInt(rng, 0, pool.size() - 1)];
    int64_t e = 0;
    if (ellipsis) {
      term.insert(term.begin() + RandomInt(rng, 0, term.size()), ' ');
      e = RandomInt(rng, 0, max_ellipsis);
    }
    Shape shape;
    for (char l : term) {
      if (l != ' ') {
        shape.push_back(size[l]);
        continue;
      }
      // Right-aligned "..." dims, each either the common size or a broadcast 1.
      for (int64_t k = max_ellipsis - e; k < max_ellipsis; ++k) {
        shape.push_back(RandomInt(rng, 0, 3) == 0 ? 1 : ellipsis_sizes[k]);
      }
    }
    c.terms.push_back(term);
    c.shapes.push_back(shape);
    c.ellipsis_ranks.push_back(e);
  }
  c.explicit_output = RandomInt(rng, 0, 1) == 1;
  if (c.explicit_output) {
    std::string used;
    for (const std::string& t : c.terms) {
      for (char l : t) {
        if (l != ' ' && used.find(l) == std::string::npos) used += l;
      }
    }
    std::shuffle(used.begin(), used.end(), rng);
    c.output = used.substr(0, RandomInt(rng, 0, used.size()));
    const int64_t max_e = *std::max_element(c.ellipsis_ranks.begin(), c.ellipsis_ranks.end());
    if (ellipsis && (max_e > 0 || RandomInt(rng, 0, 1) == 0)) {
      c.output.insert(c.output.begin() + RandomInt(rng, 0, c.output.size()), ' ');
    }
  }
  return c;
}

// The NumPy definition: every assignment of every label contributes the product of the inputs'
// elements it selects to the output element it selects.
template <typename T>
std::vector<T> Reference(const EinsumCase& c, const std::vector<std::vector<T>>& inputs,
                         Shape& output_shape) {
  const int64_t rank_e = *std::max_element(c.ellipsis_ranks.begin(), c.ellipsis_ranks.end());
  // Labels: letters by first appearance, then the rank_e broadcast dims (as '0', '1', ...).
  std::string labels;
  std::map<char, int64_t> size;
  std::map<char, int> count;
  for (size_t i = 0; i < c.terms.size(); ++i) {
    size_t d = 0;
    for (char l : c.terms[i]) {
      if (l == ' ') {
        for (int64_t k = 0; k < c.ellipsis_ranks[i]; ++k, ++d) {
          const char g = static_cast<char>('0' + rank_e - c.ellipsis_ranks[i] + k);
          size[g] = std::max(size[g], c.shapes[i][d]);
        }
        continue;
      }
      if (labels.find(l) == std::string::npos) labels += l;
      size[l] = c.shapes[i][d++];
      ++count[l];
    }
  }
  for (int64_t k = 0; k < rank_e; ++k) labels += static_cast<char>('0' + k);
  std::string out;
  const bool any_ellipsis = c.terms[0].find(' ') != std::string::npos;
  const auto add_ellipsis = [&] {
    for (int64_t k = 0; k < rank_e; ++k) out += static_cast<char>('0' + k);
  };
  if (c.explicit_output) {
    for (char l : c.output) l == ' ' ? add_ellipsis() : void(out += l);
  } else {
    if (any_ellipsis) add_ellipsis();
    std::string once;
    for (auto [l, n] : count) {
      if (n == 1) once += l;
    }
    std::sort(once.begin(), once.end());  // ASCII: uppercase first
    out += once;
  }
  output_shape.clear();
  for (char l : out) output_shape.push_back(size[l]);
  std::vector<T> y(static_cast<size_t>(Count(output_shape)), T(0));
  Shape space;
  for (char l : labels) space.push_back(size[l]);
  ForEachIndex(space, [&](const std::vector<int64_t>& at) {
    const auto value = [&](char l) { return at[labels.find(l)]; };
    T product = T(1);
    for (size_t i = 0; i < c.terms.size(); ++i) {
      std::vector<int64_t> idx;
      for (char l : c.terms[i]) {
        if (l != ' ') {
          idx.push_back(value(l));
          continue;
        }
        for (int64_t k = 0; k < c.ellipsis_ranks[i]; ++k) {
          const int64_t dim = c.shapes[i][idx.size()];
          const char g = static_cast<char>('0' + rank_e - c.ellipsis_ranks[i] + k);
          idx.push_back(dim == 1 ? 0 : value(g));
        }
      }
      product *= inputs[i][Offset(c.shapes[i], idx)];
    }
    std::vector<int64_t> oi;
    for (char l : out) oi.push_back(value(l));
    y[Offset(output_shape, oi)] += product;
  });
  return y;
}

template <typename T>
void RunRandomCases(uint32_t seed, int iterations) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < iterations; ++iter) {
    const EinsumCase c = RandomCase(rng);
    std::vector<std::vector<T>> values;
    OpCase op{"Einsum", 12, {}, {StringAttr("equation", Equation(c))}};
    for (const Shape& shape : c.shapes) {
      std::vector<T> v;
      for (int64_t k = 0; k < Count(shape); ++k) v.push_back(static_cast<T>(RandomInt(rng, -4, 4)));
      if constexpr (std::is_floating_point_v<T>) {
        for (T& x : v) x += static_cast<T>(RandomInt(rng, 0, 99)) / 100;
      }
      op.inputs.push_back(In(Tensor::FromVector<T>(shape, v).value()));
      values.push_back(std::move(v));
    }
    Shape expected_shape;
    const std::vector<T> expected = Reference(c, values, expected_shape);
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), expected_shape) << Equation(c);
    EXPECT_TRUE(AllClose(Values<T>(y[0]), expected, 1e-12, 1e-12)) << Equation(c);
  }
}

TEST(EinsumKernel, RandomEquationsDoubleMatchReference) { RunRandomCases<double>(1201, 150); }

TEST(EinsumKernel, RandomEquationsInt64MatchReference) { RunRandomCases<int64_t>(1202, 60); }

TEST(EinsumKernel, RandomEquationsInt32MatchReference) { RunRandomCases<int32_t>(1203, 60); }

// Batched matmul in float16 (whitespace in the equation is ignored).
TEST(EinsumKernel, Float16BatchMatMul) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6, 7, 8};  // [2, 2, 2]
  std::vector<Float16> a16;
  for (float v : a) a16.push_back(Float16(v));
  OpCase op{"Einsum", 12,
            {In(Tensor::FromVector<Float16>({2, 2, 2}, a16).value()),
             In(Tensor::FromVector<Float16>({2, 2, 2}, a16).value())},
            {StringAttr("equation", "bij, bjk -> bik")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  std::vector<float> got;
  for (Float16 v : Values<Float16>(y[0])) got.push_back(static_cast<float>(v));
  EXPECT_EQ(got, (std::vector<float>{7, 10, 15, 22, 67, 78, 91, 106}));
}

// A zero-length summed label gives the empty sum, 0.
TEST(EinsumKernel, EmptySumIsZero) {
  OpCase op{"Einsum", 12,
            {In(Tensor::FromVector<float>({2, 0}, {}).value()),
             In(Tensor::FromVector<float>({0, 3}, {}).value())},
            {StringAttr("equation", "ij,jk->ik")}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>(y[0]), std::vector<float>(6, 0.0f));
}

TEST(EinsumKernel, RejectsBadEquations) {
  const Tensor x = Tensor::FromVector<float>({2, 2}, {1, 2, 3, 4}).value();
  for (const char* eq : {"ij->ii", "ij->k", "i.j", "ij,jk", "ijk", "ij->i->j", "i$"}) {
    OpCase op{"Einsum", 12, {In(x)}, {StringAttr("equation", eq)}};
    EXPECT_FALSE(RunOp(op).ok()) << eq;
  }
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
