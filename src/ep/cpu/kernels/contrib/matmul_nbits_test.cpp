// ep/cpu/kernels/contrib/matmul_nbits_test.cpp: com.microsoft MatMulNBits as a one-node model
// against a reference written here from the definition (math/contrib/matmul_nbits.h) and against
// ONNX Runtime 1.30's CPU EP, on random problems (fixed seed): 4 and 8 bits, block sizes 16-256,
// odd K and N (K not a multiple of the block, up to 12 blocks), 1 to 9 rows and 5 to 41 (both the
// direct path, several columns at once and the last few one by one, and the blocked path), on 1
// and 2 threads, without zero points, with packed uint8 and with float zero points, with a
// trivial and a random g_idx, with and without bias. ORT 1.30 refuses 8-bit weights with float
// zero points or a g_idx ("Only 2b and 4b quantization is supported for unpacked compute"), so
// those problems are checked against the reference only; and it does not apply packed zero points
// when a g_idx is given, which the reference (and nxrt) follow. Scales and zero points are
// constants, and again graph inputs (offsets made per run rather than once) for 2 in 3 random
// problems and every blocked one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/contrib/contrib_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

struct Problem {
  int64_t k, n, bits, block, rows;
  bool batched;                  // A is [2, rows, K] rather than [rows, K]
  int zero_points;               // 0 none, 1 packed uint8, 2 float
  int g_idx;                     // 0 none, 1 k / block, 2 random
  bool bias;
  std::string Describe() const {
    return "K=" + std::to_string(k) + " N=" + std::to_string(n) + " bits=" +
           std::to_string(bits) + " block=" + std::to_string(block) + " rows=" +
           std::to_string(rows) + (batched ? " batched" : "") + " zp=" +
           std::to_string(zero_points) + " g_idx=" + std::to_string(g_idx) +
           (bias ? " bias" : "");
  }
};

struct Inputs {
  Tensor a, b, scales, zero_points, g_idx, bias;
};

Inputs RandomInputs(std::mt19937& rng, const Problem& p) {
  const int64_t k_blocks = (p.k + p.block - 1) / p.block;
  const int64_t blob = p.block * p.bits / 8;
  Inputs in;
  const Shape a_shape = p.batched ? Shape{2, p.rows, p.k} : Shape{p.rows, p.k};
  in.a = RandomFloats(rng, a_shape, -1, 1);
  in.b = RandomBytes(rng, {p.n, k_blocks, blob});
  in.scales = RandomFloats(rng, {p.n, k_blocks}, 0.01, 0.1);
  if (p.zero_points == 1) {
    in.zero_points = RandomBytes(rng, {p.n, (k_blocks * p.bits + 7) / 8});
  } else if (p.zero_points == 2) {
    in.zero_points = RandomFloats(rng, {p.n, k_blocks}, 0, static_cast<double>(1 << p.bits));
  }
  if (p.g_idx > 0) {
    std::vector<int32_t> g(static_cast<size_t>(p.k));
    for (int64_t i = 0; i < p.k; ++i) {
      g[static_cast<size_t>(i)] = p.g_idx == 1 ? static_cast<int32_t>(i / p.block)
                                               : static_cast<int32_t>(rng() % k_blocks);
    }
    in.g_idx = Tensor::FromVector<int32_t>({p.k}, g).value();
  }
  if (p.bias) in.bias = RandomFloats(rng, {p.n}, -1, 1);
  return in;
}

int Quantized(const uint8_t* bytes, int64_t i, int64_t bits) {
  return bits == 8 ? bytes[i] : (bytes[i / 2] >> (4 * (i % 2))) & 0x0F;
}

// Y of the definition, in double; `magnitude`, when given, receives the largest sum of |a * w|
// over the terms of one output (float rounding grows with it, not with |y|).
std::vector<double> Reference(const Problem& p, const Inputs& in, double* magnitude = nullptr) {
  const int64_t k_blocks = (p.k + p.block - 1) / p.block;
  const int64_t blob = p.block * p.bits / 8;
  const int64_t zp_row = (k_blocks * p.bits + 7) / 8;
  const int64_t m = in.a.element_count() / p.k;
  std::vector<double> w(static_cast<size_t>(p.k * p.n));
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t i = 0; i < p.k; ++i) {
      const int64_t g = p.g_idx > 0 ? in.g_idx.data<int32_t>()[i] : i / p.block;
      double zp = std::pow(2.0, static_cast<double>(p.bits - 1));
      if (p.zero_points == 1 && p.g_idx == 0) {  // ORT 1.30 skips them with a g_idx
        zp = Quantized(in.zero_points.data<uint8_t>() + n * zp_row, g, p.bits);
      }
      if (p.zero_points == 2) zp = in.zero_points.data<float>()[n * k_blocks + g];
      const uint8_t* block = in.b.data<uint8_t>() + (n * k_blocks + i / p.block) * blob;
      w[static_cast<size_t>(i * p.n + n)] =
          (Quantized(block, i % p.block, p.bits) - zp) * in.scales.data<float>()[n * k_blocks + g];
    }
  }
  std::vector<double> y(static_cast<size_t>(m * p.n));
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t n = 0; n < p.n; ++n) {
      double sum = p.bias ? in.bias.data<float>()[n] : 0.0, terms = std::fabs(sum);
      for (int64_t i = 0; i < p.k; ++i) {
        const double term = in.a.data<float>()[r * p.k + i] * w[static_cast<size_t>(i * p.n + n)];
        sum += term;
        terms += std::fabs(term);
      }
      y[static_cast<size_t>(r * p.n + n)] = sum;
      if (magnitude != nullptr) *magnitude = std::max(*magnitude, terms);
    }
  }
  return y;
}

// The tolerance of float sums of up to thousands of terms: their error grows to ~1e-6 of the
// terms' magnitude (8-bit weights with float zero points reach |w| ~ 25 and cancel to |y| ~ 1).
double Tolerance(double magnitude) { return std::max(1e-4, 1e-6 * magnitude); }

// Scales and zero points are constants (the kernel makes their offsets once), or with
// `runtime_scales` graph inputs (offsets made on every run).
cpu::testing::SingleOpModel Model(const Problem& p, const Inputs& in,
                                  bool runtime_scales = false) {
  cpu::testing::SingleOpModel model("MatMulNBits", 1, "com.microsoft");
  model.AddInput(In(in.a)).AddInput(Const(in.b));
  model.AddInput(runtime_scales ? In(in.scales) : Const(in.scales));
  if (!in.zero_points.defined()) {
    model.AddInput(Omitted());
  } else {
    model.AddInput(runtime_scales ? In(in.zero_points) : Const(in.zero_points));
  }
  for (const Tensor* t : {&in.g_idx, &in.bias}) {
    model.AddInput(t->defined() ? Const(*t) : Omitted());
  }
  model.AddOutput(DataType::kFloat);
  model.AddAttribute(IntAttr("K", p.k)).AddAttribute(IntAttr("N", p.n));
  model.AddAttribute(IntAttr("bits", p.bits)).AddAttribute(IntAttr("block_size", p.block));
  return model;
}

Problem RandomProblem(std::mt19937& rng, int iter) {
  Problem p;
  p.bits = iter % 2 == 0 ? 4 : 8;
  p.block = int64_t{16} << RandomInt(rng, 0, 4);
  p.k = RandomInt(rng, 1, 11 * p.block + 7);  // up to 12 blocks: 8 share a vector of offsets
  p.n = RandomInt(rng, 1, 37);
  p.rows = std::vector<int64_t>{1, 1, 2, 3, 4, 5, 9}[static_cast<size_t>(RandomInt(rng, 0, 6))];
  p.batched = iter % 5 == 4;
  p.zero_points = iter % 3;
  p.g_idx = iter % 7 == 3 ? 2 : (iter % 7 == 5 ? 1 : 0);
  p.bias = iter % 4 == 1;
  return p;
}

TEST(MatMulNBitsKernel, RandomProblemsMatchReferenceAndOnnxRuntime) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  std::mt19937 rng(2210);
  int compared = 0;
  for (int iter = 0; iter < 84; ++iter) {
    const Problem p = RandomProblem(rng, iter);
    const Inputs in = RandomInputs(rng, p);
    const cpu::testing::SingleOpModel model = Model(p, in);
    SessionOptions options;
    options.intra_op_threads = 1 + iter % 2;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run(options));
    double magnitude = 0;
    const std::vector<double> want = Reference(p, in, &magnitude);
    const double tolerance = Tolerance(magnitude);
    ExpectClose(y[0], want, tolerance, p.Describe() + " vs reference");
    if (iter % 3 != 1) {
      NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y_runtime,
                                Model(p, in, /*runtime_scales=*/true).Run(options));
      ExpectClose(y_runtime[0], want, tolerance, p.Describe() + " runtime scales vs reference");
    }
    if (p.bits == 8 && (p.zero_points == 2 || p.g_idx > 0)) continue;  // ORT refuses these
    ++compared;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected, RunOrt(ort, model, {{"x0", in.a}}));
    ExpectClose(expected[0], want, tolerance, p.Describe() + " ORT vs reference");
    ExpectClose(y[0], AsDoubles(expected[0]), tolerance, p.Describe() + " vs ORT");
  }
  EXPECT_EQ(compared, 62);
}

// The blocked path (more than 4 rows) over several register tiles, panels and runs of K: odd row
// counts (partial 6-row tiles), N not a multiple of 16 (a partial last panel), K past 256 and
// not a multiple of the block, both bit widths, every zero-point form, g_idx, bias, on 1 and 2
// threads.
TEST(MatMulNBitsKernel, BlockedPathMatchesReferenceAndOnnxRuntime) {
  NXRT_ASSERT_OK_AND_ASSIGN(oracle::OrtOracle ort, oracle::OrtOracle::Load());
  std::mt19937 rng(2212);
  int compared = 0;
  for (int iter = 0; iter < 24; ++iter) {
    Problem p;
    p.bits = iter % 2 == 0 ? 4 : 8;
    p.block = int64_t{16} << (iter % 5);  // 16-256; a run of 256 can start on an odd block
    p.k = RandomInt(rng, 257, 700);
    // Blocks of 256 over 9 or more blocks: runs of 256 that start on an odd block read a full
    // vector of packed zero points.
    if (p.block == 256) p.k += 2048;
    if (p.k % p.block == 0) ++p.k;
    p.n = RandomInt(rng, 17, 70) | 1;
    p.rows = RandomInt(rng, 5, 40) | 1;
    p.batched = iter % 5 == 4;
    p.zero_points = iter % 3;
    p.g_idx = iter % 6 == 3 ? 2 : (iter % 6 == 5 ? 1 : 0);
    p.bias = iter % 4 == 1;
    const Inputs in = RandomInputs(rng, p);
    const cpu::testing::SingleOpModel model = Model(p, in);
    double magnitude = 0;
    const std::vector<double> want = Reference(p, in, &magnitude);
    const double tolerance = Tolerance(magnitude);
    SessionOptions options;
    options.intra_op_threads = 1 + iter % 2;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, model.Run(options));
    ExpectClose(y[0], want, tolerance, p.Describe() + " vs reference");
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y_runtime,
                              Model(p, in, /*runtime_scales=*/true).Run(options));
    ExpectClose(y_runtime[0], want, tolerance, p.Describe() + " runtime scales vs reference");
    if (p.bits == 8 && (p.zero_points == 2 || p.g_idx > 0)) continue;  // ORT refuses these
    ++compared;
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> expected, RunOrt(ort, model, {{"x0", in.a}}));
    ExpectClose(y[0], AsDoubles(expected[0]), tolerance, p.Describe() + " vs ORT");
  }
  EXPECT_EQ(compared, 16);
}

TEST(MatMulNBitsKernel, BadAttributesAndShapesNameTheValue) {
  std::mt19937 rng(2211);
  Problem p{64, 8, 3, 32, 1, false, 0, 0, false};
  Inputs in = RandomInputs(rng, p);
  Result<std::vector<Tensor>> r = Model(p, in).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attribute 'bits' is 3"), std::string::npos)
      << r.status().ToString();

  p.bits = 4;
  p.block = 24;
  r = Model(p, in).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'block_size' is 24, expected a power of two >= 16"),
            std::string::npos)
      << r.status().ToString();

  p = Problem{64, 8, 4, 32, 1, false, 0, 0, false};
  in.a = RandomFloats(rng, {1, 63}, -1, 1);
  r = Model(p, in).Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input A has shape [1,63] but attribute K is 64"),
            std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
