// ep/cpu/math/nn/rnn_test.cpp: tests of LSTM, GRU and RNN: the ONNX backend cases
// (onnx_node_cases.inc), random configurations (directions, sequence_lens, clip, input_forget,
// peepholes, linear_before_reset, every activation) against a per-gate reference written in the
// test from the spec equations, layout 1 against transposed layout 0, and errors.
#include "ep/cpu/math/nn/rnn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ep/cpu/math/nn/testing/onnx_node_cases.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::nn {
namespace {

using testing::AllClose;
using testing::Count;
using testing::NodeCase;
using testing::RandomInt;

struct RunResult {
  std::vector<double> y, y_h, y_c;
};

std::optional<Shape> ShapeOf(const testing::NodeCaseTensor& t) {
  return t.present() ? std::optional<Shape>(t.shape) : std::nullopt;
}

TEST(RnnTest, OnnxBackendCases) {
  const std::pair<const char*, RnnCell> ops[] = {
      {"LSTM", RnnCell::kLstm}, {"GRU", RnnCell::kGru}, {"RNN", RnnCell::kRnn}};
  int count = 0;
  for (auto [op, cell] : ops) {
    for (const NodeCase* c : testing::OnnxNodeCases(op)) {
      SCOPED_TRACE(c->name);
      ++count;
      RnnAttributes attr;
      attr.cell = cell;
      attr.direction = ParseRnnDirection(c->String("direction", "forward")).value();
      attr.hidden_size = c->Int("hidden_size", 0);
      attr.layout = c->Int("layout", 0);
      attr.input_forget = c->Int("input_forget", 0) != 0;
      attr.linear_before_reset = c->Int("linear_before_reset", 0) != 0;
      if (!c->Floats("clip").empty()) attr.clip = static_cast<float>(c->Float("clip", 0));
      const std::vector<std::string> names = c->Strings("activations");
      std::vector<float> alphas, betas;
      for (double v : c->Floats("activation_alpha")) alphas.push_back(static_cast<float>(v));
      for (double v : c->Floats("activation_beta")) betas.push_back(static_cast<float>(v));
      NXRT_ASSERT_OK_AND_ASSIGN(attr.activations, ParseRnnActivations(names, alphas, betas));
      RnnShapes shapes{c->Input(0).shape,    c->Input(1).shape,    c->Input(2).shape,
                       ShapeOf(c->Input(3)), ShapeOf(c->Input(4)), ShapeOf(c->Input(5)),
                       ShapeOf(c->Input(6)), ShapeOf(c->Input(7))};
      NXRT_ASSERT_OK_AND_ASSIGN(RnnPlan plan, PrepareRnn(DataType::kFloat, shapes, attr));
      std::vector<std::vector<float>> data;
      for (size_t i = 0; i < 8; ++i) data.push_back(c->Input(i).As<float>());
      const std::vector<int32_t> lens = c->Input(4).As<int32_t>();
      RnnInputs in{data[0].data(),
                   data[1].data(),
                   data[2].data(),
                   c->Input(3).present() ? data[3].data() : nullptr,
                   c->Input(4).present() ? lens.data() : nullptr,
                   c->Input(5).present() ? data[5].data() : nullptr,
                   c->Input(6).present() ? data[6].data() : nullptr,
                   c->Input(7).present() ? data[7].data() : nullptr};
      std::vector<float> y(Count(plan.y_shape)), y_h(Count(plan.y_h_shape));
      std::vector<double> workspace(plan.workspace_bytes / sizeof(double) + 1);
      NXRT_ASSERT_OK(Rnn(plan, in, {y.data(), y_h.data(), nullptr}, workspace.data()));
      for (size_t i = 0; i < c->outputs.size(); ++i) {
        const auto& expected = c->Output(i);
        if (!expected.present()) continue;
        const std::vector<float>& got = i == 0 ? y : y_h;
        ASSERT_EQ(expected.shape, i == 0 ? plan.y_shape : plan.y_h_shape) << "output " << i;
        EXPECT_TRUE(AllClose(got, expected.Values(), 1e-5, 1e-6)) << "output " << i;
      }
    }
  }
  EXPECT_EQ(count, 12);
}

double RefActivate(const RnnActivation& f, double x) {
  const double a = f.alpha, b = f.beta;
  switch (f.kind) {
    case RnnActivationKind::kRelu:
      return x > 0 ? x : 0;
    case RnnActivationKind::kTanh:
      return std::tanh(x);
    case RnnActivationKind::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case RnnActivationKind::kAffine:
      return a * x + b;
    case RnnActivationKind::kLeakyRelu:
      return x < 0 ? a * x : x;
    case RnnActivationKind::kThresholdedRelu:
      return x > a ? x : 0;
    case RnnActivationKind::kScaledTanh:
      return a * std::tanh(b * x);
    case RnnActivationKind::kHardSigmoid:
      return std::fmax(0, std::fmin(1, a * x + b));
    case RnnActivationKind::kElu:
      return x < 0 ? a * (std::exp(x) - 1) : x;
    case RnnActivationKind::kSoftsign:
      return x / (1 + std::fabs(x));
    case RnnActivationKind::kSoftplus:
      return std::log(1 + std::exp(x));
  }
  return x;
}

// The spec equations for layout 0, one gate block at a time: gate(k) = x W_k^T + h R_k^T + Wb_k
// + Rb_k, written with explicit per-gate matrices.
RunResult Reference(RnnCell cell, const RnnAttributes& attr, const std::vector<RnnActivation>& acts,
                    int64_t seq, int64_t n, int64_t in, int64_t hid, const std::vector<double>& x,
                    const std::vector<double>& w, const std::vector<double>& r,
                    const std::vector<double>& bias, const std::vector<int32_t>& lens,
                    const std::vector<double>& h0, const std::vector<double>& c0,
                    const std::vector<double>& p) {
  const int64_t g = cell == RnnCell::kLstm ? 4 : (cell == RnnCell::kGru ? 3 : 1);
  const int64_t dirs = attr.direction == RnnDirection::kBidirectional ? 2 : 1;
  const size_t per_dir = acts.size() / dirs;
  RunResult out;
  out.y.assign(seq * dirs * n * hid, 0.0);
  out.y_h.assign(dirs * n * hid, 0.0);
  out.y_c.assign(dirs * n * hid, 0.0);
  auto clip = [&](double v) {
    return attr.clip ? std::fmax(-*attr.clip, std::fmin(*attr.clip, v)) : v;
  };
  for (int64_t d = 0; d < dirs; ++d) {
    const RnnActivation* f = &acts[d * per_dir];
    const bool reverse = attr.direction == RnnDirection::kReverse || d == 1;
    for (int64_t b = 0; b < n; ++b) {
      std::vector<double> h(hid), c(hid);
      for (int64_t j = 0; j < hid; ++j) {
        h[j] = h0.empty() ? 0 : h0[(d * n + b) * hid + j];
        c[j] = c0.empty() ? 0 : c0[(d * n + b) * hid + j];
      }
      const int64_t len = lens.empty() ? seq : lens[b];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        auto gate = [&](int64_t k, const std::vector<double>& state, int64_t j, bool with_r) {
          const int64_t row = k * hid + j;
          double v = 0;
          for (int64_t q = 0; q < in; ++q)
            v += x[(t * n + b) * in + q] * w[(d * g * hid + row) * in + q];
          if (with_r) {
            for (int64_t q = 0; q < hid; ++q) v += state[q] * r[(d * g * hid + row) * hid + q];
          }
          if (!bias.empty())
            v += bias[d * 2 * g * hid + row] + (with_r ? bias[d * 2 * g * hid + g * hid + row] : 0);
          return v;
        };
        std::vector<double> hn(hid);
        if (cell == RnnCell::kRnn) {
          for (int64_t j = 0; j < hid; ++j) hn[j] = RefActivate(f[0], clip(gate(0, h, j, true)));
        } else if (cell == RnnCell::kGru) {
          std::vector<double> z(hid), rr(hid), rh(hid);
          for (int64_t j = 0; j < hid; ++j) {
            z[j] = RefActivate(f[0], clip(gate(0, h, j, true)));
            rr[j] = RefActivate(f[0], clip(gate(1, h, j, true)));
            rh[j] = rr[j] * h[j];
          }
          for (int64_t j = 0; j < hid; ++j) {
            double pre;
            if (attr.linear_before_reset) {
              double hr = bias.empty() ? 0 : bias[d * 2 * g * hid + g * hid + 2 * hid + j];
              for (int64_t q = 0; q < hid; ++q)
                hr += h[q] * r[(d * g * hid + 2 * hid + j) * hid + q];
              pre = gate(2, h, j, false) + rr[j] * hr;
            } else {
              pre = gate(2, rh, j, true);
            }
            const double cand = RefActivate(f[1], clip(pre));
            hn[j] = (1 - z[j]) * cand + z[j] * h[j];
          }
        } else {
          std::vector<double> cn(hid);
          for (int64_t j = 0; j < hid; ++j) {
            const double* pp = p.empty() ? nullptr : &p[d * 3 * hid];
            const double i = RefActivate(f[0], clip(gate(0, h, j, true) + (pp ? pp[j] * c[j] : 0)));
            const double fg = attr.input_forget
                                  ? 1 - i
                                  : RefActivate(f[0], clip(gate(2, h, j, true) +
                                                           (pp ? pp[2 * hid + j] * c[j] : 0)));
            const double cand = RefActivate(f[1], clip(gate(3, h, j, true)));
            cn[j] = fg * c[j] + i * cand;
            const double o =
                RefActivate(f[0], clip(gate(1, h, j, true) + (pp ? pp[hid + j] * cn[j] : 0)));
            hn[j] = o * RefActivate(f[2], cn[j]);
          }
          c = cn;
        }
        h = hn;
        for (int64_t j = 0; j < hid; ++j) out.y[((t * dirs + d) * n + b) * hid + j] = h[j];
      }
      for (int64_t j = 0; j < hid; ++j) {
        out.y_h[(d * n + b) * hid + j] = h[j];
        out.y_c[(d * n + b) * hid + j] = c[j];
      }
    }
  }
  return out;
}

// Reorders a [a, b, rest...] buffer to [b, a, rest...].
std::vector<double> SwapFirstTwo(const std::vector<double>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t k = 0; k < rest; ++k) out[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
    }
  }
  return out;
}

template <typename T>
std::vector<T> As(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// `iterations` random configurations with sizes up to `max_size` in dtype T (double: the
// reference loops; float: the oneDNN products and array gates, prepared for `threads` threads,
// with W and R packed as constants when `constant_weights`), against Reference within `tolerance`.
template <typename T>
void CheckRandomConfigurations(uint32_t seed, int iterations, int64_t max_size, int threads,
                               bool constant_weights, double tolerance) {
  // double draws every activation; float the first eight only: with all eleven, some random
  // configurations of dozens of steps leave float's range (inf / NaN against finite doubles).
  const int64_t last_activation = std::is_same_v<T, double> ? 10 : 7;
  std::mt19937 rng(seed);
  const char* names[] = {
      "Relu",      "Tanh",        "Sigmoid",  "LeakyRelu", "ThresholdedRelu",
      "ScaledTanh", "HardSigmoid", "Softsign", "Affine",    "Elu",
      "Softplus"};
  for (int iter = 0; iter < iterations; ++iter) {
    const RnnCell cell = static_cast<RnnCell>(iter % 3);
    const int64_t g = cell == RnnCell::kLstm ? 4 : (cell == RnnCell::kGru ? 3 : 1);
    const int64_t per_dir = cell == RnnCell::kLstm ? 3 : (cell == RnnCell::kGru ? 2 : 1);
    RnnAttributes attr;
    attr.cell = cell;
    attr.direction = static_cast<RnnDirection>(RandomInt(rng, 0, 2));
    attr.layout = RandomInt(rng, 0, 1);
    attr.input_forget = cell == RnnCell::kLstm && iter % 4 == 1;
    attr.linear_before_reset = cell == RnnCell::kGru && iter % 2 == 0;
    if (iter % 5 == 0) attr.clip = 0.7f;
    const int64_t dirs = attr.direction == RnnDirection::kBidirectional ? 2 : 1;
    const int64_t seq = RandomInt(rng, 1, max_size), n = RandomInt(rng, 1, 3),
                  in = RandomInt(rng, 1, max_size), hid = RandomInt(rng, 1, max_size);
    std::vector<std::string> act_names;
    std::vector<float> alphas, betas;
    if (iter % 3 != 2) {
      for (int64_t i = 0; i < per_dir * dirs; ++i)
        act_names.push_back(names[RandomInt(rng, 0, last_activation)]);
      for (int i = 0; i < 3; ++i) alphas.push_back(static_cast<float>(RandomInt(rng, 1, 9)) / 10);
      betas.push_back(0.25f);
    }
    NXRT_ASSERT_OK_AND_ASSIGN(attr.activations, ParseRnnActivations(act_names, alphas, betas));
    const bool has_b = iter % 4 != 3, has_lens = iter % 3 == 1, has_h0 = iter % 2 == 1,
               has_c0 = cell == RnnCell::kLstm && iter % 5 < 3,
               has_p = cell == RnnCell::kLstm && iter % 6 < 3;
    const std::vector<double> x = testing::RandomVector<double>(rng, seq * n * in);
    // Weights scaled by 1/sqrt(fan-in), so that the unbounded activations (Relu, Affine, ...)
    // neither grow nor vanish over the steps.
    std::vector<double> w = testing::RandomVector<double>(rng, dirs * g * hid * in);
    std::vector<double> r = testing::RandomVector<double>(rng, dirs * g * hid * hid);
    for (double& v : w) v /= std::sqrt(static_cast<double>(in));
    for (double& v : r) v /= std::sqrt(static_cast<double>(hid));
    const std::vector<double> bias =
        has_b ? testing::RandomVector<double>(rng, dirs * 2 * g * hid) : std::vector<double>{};
    std::vector<int32_t> lens;
    if (has_lens)
      for (int64_t b = 0; b < n; ++b) lens.push_back(static_cast<int32_t>(RandomInt(rng, 0, seq)));
    const std::vector<double> h0 =
        has_h0 ? testing::RandomVector<double>(rng, dirs * n * hid) : std::vector<double>{};
    const std::vector<double> c0 =
        has_c0 ? testing::RandomVector<double>(rng, dirs * n * hid) : std::vector<double>{};
    const std::vector<double> p =
        has_p ? testing::RandomVector<double>(rng, dirs * 3 * hid) : std::vector<double>{};
    // Defaults as the plan resolves them, for the reference.
    std::vector<RnnActivation> acts = attr.activations;
    if (acts.empty()) {
      const std::vector<std::string> def =
          cell == RnnCell::kLstm
              ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
              : (cell == RnnCell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                       : std::vector<std::string>{"Tanh"});
      NXRT_ASSERT_OK_AND_ASSIGN(const std::vector<RnnActivation> one,
                                ParseRnnActivations(def, {}, {}));
      for (int64_t d = 0; d < dirs; ++d) acts.insert(acts.end(), one.begin(), one.end());
    }
    const RunResult want =
        Reference(cell, attr, acts, seq, n, in, hid, x, w, r, bias, lens, h0, c0, p);

    const bool bf = attr.layout == 1;
    RnnShapes shapes;
    shapes.x = bf ? Shape{n, seq, in} : Shape{seq, n, in};
    shapes.w = {dirs, g * hid, in};
    shapes.r = {dirs, g * hid, hid};
    if (has_b) shapes.b = Shape{dirs, 2 * g * hid};
    if (has_lens) shapes.sequence_lens = Shape{n};
    const Shape state = bf ? Shape{n, dirs, hid} : Shape{dirs, n, hid};
    if (has_h0) shapes.initial_h = state;
    if (has_c0) shapes.initial_c = state;
    if (has_p) shapes.p = Shape{dirs, 3 * hid};
    const std::vector<T> xl = As<T>(bf ? SwapFirstTwo(x, seq, n, in) : x);
    const std::vector<T> h0l = As<T>(bf && has_h0 ? SwapFirstTwo(h0, dirs, n, hid) : h0);
    const std::vector<T> c0l = As<T>(bf && has_c0 ? SwapFirstTwo(c0, dirs, n, hid) : c0);
    const std::vector<T> wt = As<T>(w), rt = As<T>(r), bt = As<T>(bias), pt = As<T>(p);
    RnnOptions options;
    options.threads = threads;
    if (constant_weights) {
      options.constant_w = wt.data();
      options.constant_r = rt.data();
    }
    NXRT_ASSERT_OK_AND_ASSIGN(RnnPlan plan,
                              PrepareRnn(DataTypeOf<T>(), shapes, attr, options));
    RnnInputs inputs{xl.data(),
                     wt.data(),
                     rt.data(),
                     has_b ? bt.data() : nullptr,
                     has_lens ? lens.data() : nullptr,
                     has_h0 ? h0l.data() : nullptr,
                     has_c0 ? c0l.data() : nullptr,
                     has_p ? pt.data() : nullptr};
    std::vector<T> yt(Count(plan.y_shape), -1), y_ht(Count(plan.y_h_shape)), y_ct(y_ht.size());
    std::vector<double> workspace(plan.workspace_bytes / sizeof(double) + 1);
    NXRT_ASSERT_OK(Rnn(plan, inputs,
                       {yt.data(), y_ht.data(), cell == RnnCell::kLstm ? y_ct.data() : nullptr},
                       workspace.data()));
    const std::vector<double> y(yt.begin(), yt.end()), y_h(y_ht.begin(), y_ht.end()),
        y_c(y_ct.begin(), y_ct.end());
    // Layout 1: Y [batch, seq, dirs, hid] and states [batch, dirs, hid] back to layout 0.
    std::vector<double> y0 = y;
    if (bf) {
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t t = 0; t < seq; ++t) {
          for (int64_t d = 0; d < dirs; ++d) {
            for (int64_t j = 0; j < hid; ++j) {
              y0[((t * dirs + d) * n + b) * hid + j] = y[((b * seq + t) * dirs + d) * hid + j];
            }
          }
        }
      }
    }
    const std::vector<double> y_h0 = bf ? SwapFirstTwo(y_h, n, dirs, hid) : y_h;
    EXPECT_TRUE(AllClose(y0, want.y, tolerance, tolerance)) << "iteration " << iter;
    EXPECT_TRUE(AllClose(y_h0, want.y_h, tolerance, tolerance)) << "iteration " << iter;
    if (cell == RnnCell::kLstm) {
      const std::vector<double> y_c0 = bf ? SwapFirstTwo(y_c, n, dirs, hid) : y_c;
      EXPECT_TRUE(AllClose(y_c0, want.y_c, tolerance, tolerance)) << "iteration " << iter;
    }
  }
}

TEST(RnnTest, RandomConfigurationsAgainstSpecEquations) {
  CheckRandomConfigurations<double>(71, 90, 4, 1, false, 1e-12);
}

// float on oneDNN: odd sizes up to 37 (vector tails), 1 and 2 threads, W and R given at compute
// time or packed as constants.
TEST(RnnTest, FloatOnOneDnnAgainstSpecEquations) {
  CheckRandomConfigurations<float>(72, 45, 37, 1, false, 2e-4);
  CheckRandomConfigurations<float>(73, 45, 37, 2, true, 2e-4);
  // Sizes up to 64: most input projections reach 2^18 multiply-adds and run on two threads
  // (dnnl_util.h DnnlThreadsFor), their team put to sleep before the recurrence. (Seeds whose
  // configurations leave float's range fail against the double reference, see above.)
  CheckRandomConfigurations<float>(75, 6, 64, 2, true, 2e-4);
}

TEST(RnnTest, ActivationParsingConsumesAlphasAndBetasInOrder) {
  const std::vector<std::string> names = {"LeakyRelu", "Tanh", "hardsigmoid", "ScaledTanh"};
  const std::vector<float> alphas = {0.1f, 0.3f};
  const std::vector<float> betas = {0.6f};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<RnnActivation> acts,
                            ParseRnnActivations(names, alphas, betas));
  ASSERT_EQ(acts.size(), 4u);
  EXPECT_EQ(acts[0].alpha, 0.1f);
  EXPECT_EQ(acts[2].kind, RnnActivationKind::kHardSigmoid);
  EXPECT_EQ(acts[2].alpha, 0.3f);
  EXPECT_EQ(acts[2].beta, 0.6f);
  EXPECT_EQ(acts[3].alpha, 1.0f);  // defaults once the lists run out
  EXPECT_EQ(acts[3].beta, 1.0f);
  const std::vector<std::string> bad = {"Gelu"};
  EXPECT_FALSE(ParseRnnActivations(bad, {}, {}).ok());
}

TEST(RnnTest, Errors) {
  RnnAttributes attr;
  attr.cell = RnnCell::kLstm;
  RnnShapes shapes;
  shapes.x = {2, 1, 3};
  shapes.w = {1, 8, 3};  // hidden 2 from R
  shapes.r = {1, 8, 2};
  shapes.b = Shape{1, 8};
  auto bias = PrepareRnn(DataType::kFloat, shapes, attr);
  ASSERT_FALSE(bias.ok());
  EXPECT_NE(bias.status().message().find("[1,8]"), std::string::npos) << bias.status().message();
  EXPECT_NE(bias.status().message().find("[1,16]"), std::string::npos) << bias.status().message();
  shapes.b.reset();
  shapes.w = {1, 8, 4};
  auto w = PrepareRnn(DataType::kFloat, shapes, attr);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("[1,8,4]"), std::string::npos) << w.status().message();
  shapes.w = {1, 8, 3};
  shapes.sequence_lens = Shape{1};
  NXRT_ASSERT_OK_AND_ASSIGN(RnnPlan plan, PrepareRnn(DataType::kFloat, shapes, attr));
  std::vector<float> x(6), wv(24), r(16), y(Count(plan.y_shape));
  const std::vector<int32_t> lens = {3};
  std::vector<double> workspace(plan.workspace_bytes / sizeof(double) + 1);
  Status s = Rnn(plan, {x.data(), wv.data(), r.data(), nullptr, lens.data()},
                 {y.data(), nullptr, nullptr}, workspace.data());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sequence_lens[0] is 3"), std::string::npos) << s.message();
  attr.activations.resize(2);
  EXPECT_FALSE(PrepareRnn(DataType::kFloat, shapes, attr).ok());
  EXPECT_EQ(PrepareRnn(DataType::kInt32, shapes, {}).status().code(), StatusCode::kUnsupported);
  EXPECT_FALSE(ParseRnnDirection("both").ok());
}

}  // namespace
}  // namespace nxrt::cpu::nn
