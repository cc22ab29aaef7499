// ep/cpu/math/nn/rnn.cpp: LSTM, GRU and RNN. Layer: nxrt_cpu_math.
#include "ep/cpu/math/nn/rnn.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

#include "core/thread_pool.h"
#include "ep/cpu/math/fast_math.h"
#include "ep/cpu/math/nn/dnnl_threads.h"
#include "ep/cpu/math/nn_common.h"
#include "ep/cpu/math/simd_map.h"

namespace nxrt::cpu::nn {

Result<RnnDirection> ParseRnnDirection(std::string_view direction) {
  if (direction == "forward") return RnnDirection::kForward;
  if (direction == "reverse") return RnnDirection::kReverse;
  if (direction == "bidirectional") return RnnDirection::kBidirectional;
  return MakeStatus(StatusCode::kInvalidArgument, "direction '", direction,
                    "' is not supported (expected forward, reverse or bidirectional)");
}

Result<std::vector<RnnActivation>> ParseRnnActivations(std::span<const std::string> names,
                                                       std::span<const float> alphas,
                                                       std::span<const float> betas) {
  struct Known {
    std::string_view name;
    RnnActivationKind kind;
    bool takes_alpha, takes_beta;
    float alpha, beta;
  };
  static constexpr Known kKnown[] = {
      {"relu", RnnActivationKind::kRelu, false, false, 0, 0},
      {"tanh", RnnActivationKind::kTanh, false, false, 0, 0},
      {"sigmoid", RnnActivationKind::kSigmoid, false, false, 0, 0},
      {"affine", RnnActivationKind::kAffine, true, true, 1.0f, 0.0f},
      {"leakyrelu", RnnActivationKind::kLeakyRelu, true, false, 0.01f, 0},
      {"thresholdedrelu", RnnActivationKind::kThresholdedRelu, true, false, 1.0f, 0},
      {"scaledtanh", RnnActivationKind::kScaledTanh, true, true, 1.0f, 1.0f},
      {"hardsigmoid", RnnActivationKind::kHardSigmoid, true, true, 0.2f, 0.5f},
      {"elu", RnnActivationKind::kElu, true, false, 1.0f, 0},
      {"softsign", RnnActivationKind::kSoftsign, false, false, 0, 0},
      {"softplus", RnnActivationKind::kSoftplus, false, false, 0, 0},
  };
  std::vector<RnnActivation> out;
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const Known* known = nullptr;
    for (const Known& k : kKnown) {
      if (k.name == lower) known = &k;
    }
    if (known == nullptr) {
      return MakeStatus(StatusCode::kInvalidArgument, "activation '", name,
                        "' is not supported (expected Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                        "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign or Softplus)");
    }
    RnnActivation a{known->kind, known->alpha, known->beta};
    if (known->takes_alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (known->takes_beta && next_beta < betas.size()) a.beta = betas[next_beta++];
    out.push_back(a);
  }
  return out;
}

namespace {

int64_t GateCount(RnnCell cell) {
  switch (cell) {
    case RnnCell::kLstm:
      return 4;
    case RnnCell::kGru:
      return 3;
    case RnnCell::kRnn:
      return 1;
  }
  return 1;
}

std::string_view CellName(RnnCell cell) {
  switch (cell) {
    case RnnCell::kLstm:
      return "LSTM";
    case RnnCell::kGru:
      return "GRU";
    case RnnCell::kRnn:
      return "RNN";
  }
  return "RNN";
}

std::vector<RnnActivation> DefaultActivations(RnnCell cell) {
  const RnnActivation sigmoid{RnnActivationKind::kSigmoid, 0, 0};
  const RnnActivation tanh{RnnActivationKind::kTanh, 0, 0};
  switch (cell) {
    case RnnCell::kLstm:
      return {sigmoid, tanh, tanh};
    case RnnCell::kGru:
      return {sigmoid, tanh};
    case RnnCell::kRnn:
      return {tanh};
  }
  return {tanh};
}

template <typename A>
A Activate(const RnnActivation& f, A x) {
  const A alpha = static_cast<A>(f.alpha), beta = static_cast<A>(f.beta);
  switch (f.kind) {
    case RnnActivationKind::kRelu:
      return std::max(x, A{0});
    case RnnActivationKind::kTanh:
      return std::tanh(x);
    case RnnActivationKind::kSigmoid:
      return A{1} / (A{1} + std::exp(-x));
    case RnnActivationKind::kAffine:
      return alpha * x + beta;
    case RnnActivationKind::kLeakyRelu:
      return x >= 0 ? x : alpha * x;
    case RnnActivationKind::kThresholdedRelu:
      return x > alpha ? x : A{0};
    case RnnActivationKind::kScaledTanh:
      return alpha * std::tanh(beta * x);
    case RnnActivationKind::kHardSigmoid:
      return std::min(std::max(alpha * x + beta, A{0}), A{1});
    case RnnActivationKind::kElu:
      return x >= 0 ? x : alpha * (std::exp(x) - A{1});
    case RnnActivationKind::kSoftsign:
      return x / (A{1} + std::fabs(x));
    case RnnActivationKind::kSoftplus:
      return std::log1p(std::exp(x));
  }
  return x;
}

template <typename T>
using RnnAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

Status ExpectShape(std::string_view op, std::string_view what, const std::optional<Shape>& shape,
                   const Shape& expected, const Shape& x, const Shape& w) {
  if (shape.has_value() && *shape != expected) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": ", what, " has shape ", Str(*shape),
                      ", expected ", Str(expected), " for X ", Str(x), " and W ", Str(w));
  }
  return Status::Ok();
}

// Rows of R the per-step product takes: all G*H, except GRU without linear_before_reset, whose
// candidate rows multiply r (.) h in a second product.
int64_t RecurrentRows(const RnnPlan& plan) {
  const bool split = plan.attributes.cell == RnnCell::kGru && !plan.attributes.linear_before_reset;
  return (split ? 2 : plan.gates) * plan.hidden;
}

// Float workspace: h, c, r (.) h, a temporary [batch, H] each; the summed biases [G*H]; the input
// projection [seq * batch, G*H]; the recurrent products [batch, G*H]; then the Gemm scratchpad.
struct FloatWorkspace {
  float* h;
  float* c;
  float* reset_h;
  float* temp;
  float* bias;
  float* projected;
  float* recurrent;
  std::span<std::byte> scratchpad;

  FloatWorkspace(const RnnPlan& p, void* workspace) {
    const int64_t n = p.batch, h_size = p.hidden, gh = p.gates * p.hidden;
    float* next = static_cast<float*>(workspace);
    for (float** part : {&h, &c, &reset_h, &temp}) {
      *part = next;
      next += n * h_size;
    }
    bias = next;
    next += gh;
    projected = next;
    next += p.seq * n * gh;
    recurrent = next;
    auto* base = static_cast<std::byte*>(workspace) + p.gemm_workspace_offset;
    const size_t misalignment = reinterpret_cast<uintptr_t>(base) % 64;
    base += misalignment == 0 ? 0 : 64 - misalignment;
    scratchpad = {base, p.workspace_bytes - p.gemm_workspace_offset - 64};
  }

  static size_t Floats(const RnnPlan& p) {
    const int64_t n = p.batch, gh = p.gates * p.hidden;
    return static_cast<size_t>(4 * n * p.hidden + gh + p.seq * n * gh + n * gh);
  }
};

Status PrepareFloatGemms(const RnnOptions& options, RnnPlan* plan) {
  const int64_t n = plan->batch, h = plan->hidden, gh = plan->gates * h;
  GemmAttributes transposed_b;
  transposed_b.trans_b = true;
  size_t scratchpad = 0;
  auto prepare = [&](int64_t m, int64_t k, int64_t rows, const void* constant,
                     int64_t offset) -> Result<GemmPlan> {
    GemmOptions gemm;
    gemm.threads = options.threads;
    gemm.constant_b =
        constant != nullptr ? static_cast<const float*>(constant) + offset : nullptr;
    const int64_t a_shape[2] = {m, k};
    const int64_t b_shape[2] = {rows, k};
    NXRT_ASSIGN_OR_RETURN(GemmPlan gemm_plan, PrepareGemm(DataType::kFloat, a_shape, b_shape,
                                                          std::nullopt, transposed_b, gemm));
    scratchpad = std::max(scratchpad, gemm_plan.scratchpad_bytes);
    return gemm_plan;
  };
  for (int64_t dir = 0; dir < plan->directions; ++dir) {
    RnnDirectionGemms gemms;
    NXRT_ASSIGN_OR_RETURN(gemms.input, prepare(plan->seq * n, plan->input_size, gh,
                                               options.constant_w, dir * gh * plan->input_size));
    NXRT_ASSIGN_OR_RETURN(gemms.recurrent,
                          prepare(n, h, RecurrentRows(*plan), options.constant_r, dir * gh * h));
    if (RecurrentRows(*plan) != gh) {
      NXRT_ASSIGN_OR_RETURN(gemms.reset_hidden,
                            prepare(n, h, h, options.constant_r, dir * gh * h + 2 * h * h));
    }
    plan->gemms.push_back(std::move(gemms));
  }
  plan->gemm_workspace_offset = FloatWorkspace::Floats(*plan) * sizeof(float);
  plan->workspace_bytes = plan->gemm_workspace_offset + 64 + scratchpad;
  return Status::Ok();
}

}  // namespace

Result<RnnPlan> PrepareRnn(DataType dtype, const RnnShapes& shapes,
                           const RnnAttributes& attributes, const RnnOptions& options) {
  const std::string_view op = CellName(attributes.cell);
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypes>(dtype, op, [](auto) {}));
  const Shape& x = shapes.x;
  const Shape& w = shapes.w;
  if (x.size() != 3 || w.size() != 3 || shapes.r.size() != 3) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": X ", Str(x), ", W ", Str(w), " and R ",
                      Str(shapes.r), " must have rank 3");
  }
  if (attributes.layout != 0 && attributes.layout != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": layout is ", attributes.layout,
                      ", expected 0 or 1");
  }
  RnnPlan plan;
  plan.dtype = dtype;
  plan.attributes = attributes;
  plan.gates = GateCount(attributes.cell);
  plan.directions = attributes.direction == RnnDirection::kBidirectional ? 2 : 1;
  const bool batch_first = attributes.layout == 1;
  plan.seq = batch_first ? x[1] : x[0];
  plan.batch = batch_first ? x[0] : x[1];
  plan.input_size = x[2];
  plan.hidden = attributes.hidden_size > 0 ? attributes.hidden_size : shapes.r[2];
  const int64_t d = plan.directions, g = plan.gates, h = plan.hidden, n = plan.batch;
  // The weight shapes below multiply the hidden size by up to 2 x gates x directions.
  int64_t widest = 0;
  if (h < 0 || __builtin_mul_overflow(2 * g * d, h, &widest)) {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": hidden size ", h,
                      " is not a size whose weights fit 64 bits; fix hidden_size or R");
  }
  NXRT_RETURN_IF_ERROR(CheckShape(op, "X", x));
  NXRT_RETURN_IF_ERROR(ExpectShape(op, "W", w, Shape{d, g * h, plan.input_size}, x, w));
  NXRT_RETURN_IF_ERROR(ExpectShape(op, "R", shapes.r, Shape{d, g * h, h}, x, w));
  NXRT_RETURN_IF_ERROR(ExpectShape(op, "B", shapes.b, Shape{d, 2 * g * h}, x, w));
  NXRT_RETURN_IF_ERROR(ExpectShape(op, "sequence_lens", shapes.sequence_lens, Shape{n}, x, w));
  const Shape state = batch_first ? Shape{n, d, h} : Shape{d, n, h};
  NXRT_RETURN_IF_ERROR(ExpectShape(op, "initial_h", shapes.initial_h, state, x, w));
  if (attributes.cell == RnnCell::kLstm) {
    NXRT_RETURN_IF_ERROR(ExpectShape(op, "initial_c", shapes.initial_c, state, x, w));
    NXRT_RETURN_IF_ERROR(ExpectShape(op, "P", shapes.p, Shape{d, 3 * h}, x, w));
  }
  plan.has_b = shapes.b.has_value();
  plan.has_sequence_lens = shapes.sequence_lens.has_value();
  plan.has_initial_h = shapes.initial_h.has_value();
  plan.has_initial_c = attributes.cell == RnnCell::kLstm && shapes.initial_c.has_value();
  plan.has_p = attributes.cell == RnnCell::kLstm && shapes.p.has_value();
  const size_t per_direction = DefaultActivations(attributes.cell).size();
  if (attributes.activations.empty()) {
    for (int64_t i = 0; i < d; ++i) {
      for (const RnnActivation& a : DefaultActivations(attributes.cell)) {
        plan.activations.push_back(a);
      }
    }
  } else if (attributes.activations.size() == per_direction * d ||
             attributes.activations.size() == per_direction) {
    for (int64_t i = 0; i < d; ++i) {
      const size_t base = attributes.activations.size() == per_direction ? 0 : i * per_direction;
      for (size_t j = 0; j < per_direction; ++j) {
        plan.activations.push_back(attributes.activations[base + j]);
      }
    }
  } else {
    return MakeStatus(StatusCode::kInvalidArgument, op, ": got ", attributes.activations.size(),
                      " activations, expected ", per_direction, " per direction (", d,
                      " directions)");
  }
  plan.y_shape = batch_first ? Shape{n, plan.seq, d, h} : Shape{plan.seq, d, n, h};
  plan.y_h_shape = state;
  if (attributes.cell == RnnCell::kLstm) plan.y_c_shape = state;
  // State h and c, and the gate pre-activations, per batch entry.
  const size_t acc_size = dtype == DataType::kDouble ? sizeof(double) : sizeof(float);
  plan.workspace_bytes = static_cast<size_t>(n * h * 2 + n * g * h) * acc_size;
  if (dtype == DataType::kFloat) NXRT_RETURN_IF_ERROR(PrepareFloatGemms(options, &plan));
  return plan;
}

namespace {

template <typename T>
class Recurrence {
 public:
  using A = RnnAcc<T>;

  Recurrence(const RnnPlan& plan, const RnnInputs& in, const RnnOutputs& out, void* workspace)
      : p_(plan), in_(in), out_(out) {
    A* ws = static_cast<A*>(workspace);
    h_ = ws;
    c_ = ws + p_.batch * p_.hidden;
    gates_ = ws + 2 * p_.batch * p_.hidden;
  }

  void RunDirection(int64_t dir) {
    const int64_t n = p_.batch, h = p_.hidden, g = p_.gates;
    const bool reverse = p_.attributes.direction == RnnDirection::kReverse || dir == 1;
    const T* w = static_cast<const T*>(in_.w) + dir * g * h * p_.input_size;
    const T* r = static_cast<const T*>(in_.r) + dir * g * h * h;
    const T* bias = in_.b ? static_cast<const T*>(in_.b) + dir * 2 * g * h : nullptr;
    const T* peep = p_.has_p ? static_cast<const T*>(in_.p) + dir * 3 * h : nullptr;
    const RnnActivation* f = &p_.activations[dir * (p_.activations.size() / p_.directions)];
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < h; ++j) {
        h_[b * h + j] = p_.has_initial_h ? Load(in_.initial_h, StateIndex(dir, b, j)) : A{0};
        c_[b * h + j] = p_.has_initial_c ? Load(in_.initial_c, StateIndex(dir, b, j)) : A{0};
      }
    }
    for (int64_t step = 0; step < p_.seq; ++step) {
      const int64_t t = reverse ? p_.seq - 1 - step : step;
      for (int64_t b = 0; b < n; ++b) {
        if (t >= Length(b)) {
          if (out_.y != nullptr) {
            for (int64_t j = 0; j < h; ++j) Store(out_.y, YIndex(t, dir, b, j), A{0});
          }
          continue;
        }
        Step(t, b, w, r, bias, peep, f);
        if (out_.y != nullptr) {
          for (int64_t j = 0; j < h; ++j) Store(out_.y, YIndex(t, dir, b, j), h_[b * h + j]);
        }
      }
    }
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < h; ++j) {
        if (out_.y_h != nullptr) Store(out_.y_h, StateIndex(dir, b, j), h_[b * h + j]);
        if (out_.y_c != nullptr) Store(out_.y_c, StateIndex(dir, b, j), c_[b * h + j]);
      }
    }
  }

 private:
  A Load(const void* base, int64_t i) const {
    return static_cast<A>(ToAcc(static_cast<const T*>(base)[i]));
  }
  void Store(void* base, int64_t i, A v) const { static_cast<T*>(base)[i] = FromAcc<T>(v); }

  int64_t Length(int64_t b) const { return p_.has_sequence_lens ? in_.sequence_lens[b] : p_.seq; }
  int64_t StateIndex(int64_t dir, int64_t b, int64_t j) const {
    return p_.attributes.layout == 1 ? (b * p_.directions + dir) * p_.hidden + j
                                     : (dir * p_.batch + b) * p_.hidden + j;
  }
  int64_t YIndex(int64_t t, int64_t dir, int64_t b, int64_t j) const {
    return p_.attributes.layout == 1 ? ((b * p_.seq + t) * p_.directions + dir) * p_.hidden + j
                                     : ((t * p_.directions + dir) * p_.batch + b) * p_.hidden + j;
  }
  int64_t XIndex(int64_t t, int64_t b) const {
    return (p_.attributes.layout == 1 ? b * p_.seq + t : t * p_.batch + b) * p_.input_size;
  }

  A Clip(A v) const {
    if (!p_.attributes.clip.has_value()) return v;
    const A c = static_cast<A>(*p_.attributes.clip);
    return std::clamp(v, -c, c);
  }

  // Sum of a[k] * b[k] over k < n in eight partial sums, so that the loop vectorises.
  template <typename U>
  static A DotProduct(const T* a, const U* b, int64_t n) {
    A part[8] = {};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
      for (int l = 0; l < 8; ++l) {
        part[l] += static_cast<A>(ToAcc(a[k + l])) * static_cast<A>(ToAcc(b[k + l]));
      }
    }
    A s = ((part[0] + part[4]) + (part[1] + part[5])) + ((part[2] + part[6]) + (part[3] + part[7]));
    for (; k < n; ++k) s += static_cast<A>(ToAcc(a[k])) * static_cast<A>(ToAcc(b[k]));
    return s;
  }
  // Row `row` of W times x_t plus row `row` of R times `state` (the previous h, or r (.) h).
  A Dot(const T* m, int64_t row, int64_t cols, const A* v) const {
    return DotProduct(m + row * cols, v, cols);
  }
  A DotX(const T* w, int64_t row, int64_t t, int64_t b) const {
    return DotProduct(w + row * p_.input_size, static_cast<const T*>(in_.x) + XIndex(t, b),
                      p_.input_size);
  }
  A Bias(const T* bias, int64_t row, bool recurrent) const {
    if (bias == nullptr) return 0;
    return static_cast<A>(ToAcc(bias[(recurrent ? p_.gates * p_.hidden : 0) + row]));
  }

  void Step(int64_t t, int64_t b, const T* w, const T* r, const T* bias, const T* peep,
            const RnnActivation* f) {
    const int64_t h = p_.hidden;
    A* hb = h_ + b * h;
    A* cb = c_ + b * h;
    A* gb = gates_ + b * p_.gates * h;
    switch (p_.attributes.cell) {
      case RnnCell::kRnn:
        for (int64_t j = 0; j < h; ++j) {
          gb[j] = Clip(DotX(w, j, t, b) + Dot(r, j, h, hb) + Bias(bias, j, false) +
                       Bias(bias, j, true));
        }
        for (int64_t j = 0; j < h; ++j) hb[j] = Activate(f[0], gb[j]);
        break;
      case RnnCell::kGru: {
        // Gates z (rows 0..h), r (h..2h), candidate (2h..3h).
        for (int64_t j = 0; j < 2 * h; ++j) {
          gb[j] = Activate(f[0], Clip(DotX(w, j, t, b) + Dot(r, j, h, hb) + Bias(bias, j, false) +
                                      Bias(bias, j, true)));
        }
        const A* z = gb;
        const A* rg = gb + h;
        A* cand = gb + 2 * h;
        for (int64_t j = 0; j < h; ++j) {
          const int64_t row = 2 * h + j;
          A rec;
          if (p_.attributes.linear_before_reset) {
            rec = rg[j] * (Dot(r, row, h, hb) + Bias(bias, row, true));
          } else {
            rec = Bias(bias, row, true);
            const T* rr = r + row * h;
            for (int64_t k = 0; k < h; ++k) rec += static_cast<A>(ToAcc(rr[k])) * rg[k] * hb[k];
          }
          cand[j] = Activate(f[1], Clip(DotX(w, row, t, b) + Bias(bias, row, false) + rec));
        }
        for (int64_t j = 0; j < h; ++j) hb[j] = (A{1} - z[j]) * cand[j] + z[j] * hb[j];
        break;
      }
      case RnnCell::kLstm: {
        // Gate rows: i (0..h), o (h..2h), f (2h..3h), c (3h..4h); peepholes P = [i, o, f].
        for (int64_t j = 0; j < 4 * h; ++j) {
          gb[j] = DotX(w, j, t, b) + Dot(r, j, h, hb) + Bias(bias, j, false) + Bias(bias, j, true);
        }
        for (int64_t j = 0; j < h; ++j) {
          const A pi = peep ? static_cast<A>(ToAcc(peep[j])) : A{0};
          const A po = peep ? static_cast<A>(ToAcc(peep[h + j])) : A{0};
          const A pf = peep ? static_cast<A>(ToAcc(peep[2 * h + j])) : A{0};
          const A i = Activate(f[0], Clip(gb[j] + pi * cb[j]));
          const A fg = p_.attributes.input_forget
                           ? A{1} - i
                           : Activate(f[0], Clip(gb[2 * h + j] + pf * cb[j]));
          const A cand = Activate(f[1], Clip(gb[3 * h + j]));
          cb[j] = fg * cb[j] + i * cand;
          const A o = Activate(f[0], Clip(gb[h + j] + po * cb[j]));
          hb[j] = o * Activate(f[2], cb[j]);
        }
        break;
      }
    }
  }

  const RnnPlan& p_;
  const RnnInputs& in_;
  const RnnOutputs& out_;
  A* h_ = nullptr;
  A* c_ = nullptr;
  A* gates_ = nullptr;
};


// Clip to [-clip, clip] (NaN stays) and the activation over an array; sigmoid and tanh (every
// default) are the fast_math.h functions in the CPU's widest SIMD build (simd_map.h).
void ActivateArray(const RnnActivation& f, const std::optional<float>& clip, float* v, int64_t n) {
  if (clip.has_value()) {
    const float c = *clip;
    for (int64_t j = 0; j < n; ++j) {
      const float low = v[j] < -c ? -c : v[j];
      v[j] = low > c ? c : low;
    }
  }
  switch (f.kind) {
    case RnnActivationKind::kSigmoid:
      math::MapElements([](float x) { return math::FastSigmoid(x); }, v, v, n);
      break;
    case RnnActivationKind::kTanh:
      math::MapElements([](float x) { return math::FastTanh(x); }, v, v, n);
      break;
    default:
      for (int64_t j = 0; j < n; ++j) v[j] = Activate(f, v[j]);
      break;
  }
}

// The float recurrence on the plan's oneDNN products (see rnn.h).
class FloatRecurrence {
 public:
  FloatRecurrence(const RnnPlan& plan, const RnnInputs& in, const RnnOutputs& out,
                  void* workspace)
      : p_(plan), in_(in), out_(out), ws_(plan, workspace) {}

  Status RunDirection(int64_t dir) {
    const int64_t n = p_.batch, h = p_.hidden, gh = p_.gates * h, rec = RecurrentRows(p_);
    const RnnDirectionGemms& gemms = p_.gemms[dir];
    const bool reverse = p_.attributes.direction == RnnDirection::kReverse || dir == 1;
    const float* r = static_cast<const float*>(in_.r) + dir * gh * h;
    const auto* bias = static_cast<const float*>(in_.b);
    if (bias != nullptr) bias += dir * 2 * gh;
    const float* peep = p_.has_p ? static_cast<const float*>(in_.p) + dir * 3 * h : nullptr;
    const RnnActivation* f = &p_.activations[dir * (p_.activations.size() / p_.directions)];
    const bool gru = p_.attributes.cell == RnnCell::kGru;
    const bool lbr = gru && p_.attributes.linear_before_reset;
    // Wb + Rb, except the candidate rows of a GRU with linear_before_reset (Rb goes inside r (.)).
    for (int64_t j = 0; j < gh; ++j) {
      const bool inner = lbr && j >= 2 * h;
      ws_.bias[j] = bias == nullptr ? 0.0f : bias[j] + (inner ? 0.0f : bias[gh + j]);
    }
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < h; ++j) {
        ws_.h[b * h + j] = p_.has_initial_h ? Load(in_.initial_h, StateIndex(dir, b, j)) : 0.0f;
        ws_.c[b * h + j] = p_.has_initial_c ? Load(in_.initial_c, StateIndex(dir, b, j)) : 0.0f;
      }
    }
    const float* w = static_cast<const float*>(in_.w) + dir * gh * p_.input_size;
    {
      // The projection is the op's one large product; the steps after it run on this thread.
      const TeamSleepsAfterRegions sleeps;
      NXRT_RETURN_IF_ERROR(
          Gemm(gemms.input, in_.x, w, nullptr, ws_.projected, ws_.scratchpad));
    }
    for (int64_t step = 0; step < p_.seq; ++step) {
      const int64_t t = reverse ? p_.seq - 1 - step : step;
      NXRT_RETURN_IF_ERROR(
          Gemm(gemms.recurrent, ws_.h, r, nullptr, ws_.recurrent, ws_.scratchpad));
      for (int64_t b = 0; b < n; ++b) {
        if (t >= Length(b)) continue;
        float* g = ws_.recurrent + b * rec;
        const float* x = ws_.projected + XRow(t, b) * gh;
        const int64_t summed = gru ? 2 * h : gh;
        for (int64_t j = 0; j < summed; ++j) g[j] += x[j] + ws_.bias[j];
        float* hb = ws_.h + b * h;
        float* cb = ws_.c + b * h;
        switch (p_.attributes.cell) {
          case RnnCell::kRnn:
            ActivateArray(f[0], p_.attributes.clip, g, h);
            std::copy(g, g + h, hb);
            break;
          case RnnCell::kLstm:
            LstmGates(g, hb, cb, ws_.temp + b * h, peep, f);
            break;
          case RnnCell::kGru: {
            ActivateArray(f[0], p_.attributes.clip, g, 2 * h);
            const float* rg = g + h;
            float* reset_h = ws_.reset_h + b * h;
            for (int64_t j = 0; j < h; ++j) reset_h[j] = rg[j] * hb[j];
            break;
          }
        }
      }
      if (gru) {
        if (!lbr) {
          NXRT_RETURN_IF_ERROR(Gemm(*gemms.reset_hidden, ws_.reset_h, r + 2 * h * h, nullptr,
                                    ws_.temp, ws_.scratchpad));
        }
        for (int64_t b = 0; b < n; ++b) {
          if (t >= Length(b)) continue;
          const float* g = ws_.recurrent + b * rec;
          const float* x = ws_.projected + XRow(t, b) * gh + 2 * h;
          const float* cand_bias = ws_.bias + 2 * h;
          float* cand = ws_.temp + b * h;
          if (lbr) {
            const float* rb = bias == nullptr ? nullptr : bias + gh + 2 * h;
            for (int64_t j = 0; j < h; ++j) {
              cand[j] = x[j] + cand_bias[j] + g[h + j] * (g[2 * h + j] + (rb ? rb[j] : 0.0f));
            }
          } else {
            for (int64_t j = 0; j < h; ++j) cand[j] += x[j] + cand_bias[j];
          }
          ActivateArray(f[1], p_.attributes.clip, cand, h);
          float* hb = ws_.h + b * h;
          for (int64_t j = 0; j < h; ++j) hb[j] = (1.0f - g[j]) * cand[j] + g[j] * hb[j];
        }
      }
      if (out_.y != nullptr) {
        for (int64_t b = 0; b < n; ++b) {
          float* y = static_cast<float*>(out_.y) + YIndex(t, dir, b);
          if (t >= Length(b)) {
            std::fill(y, y + h, 0.0f);
          } else {
            std::copy(ws_.h + b * h, ws_.h + (b + 1) * h, y);
          }
        }
      }
    }
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < h; ++j) {
        if (out_.y_h != nullptr) Store(out_.y_h, StateIndex(dir, b, j), ws_.h[b * h + j]);
        if (out_.y_c != nullptr) Store(out_.y_c, StateIndex(dir, b, j), ws_.c[b * h + j]);
      }
    }
    return Status::Ok();
  }

 private:
  // Gate rows i, o, f, c of one batch entry (pre-activations summed in g); peepholes [i, o, f].
  void LstmGates(float* g, float* hb, float* cb, float* temp, const float* peep,
                 const RnnActivation* f) const {
    const int64_t h = p_.hidden;
    float* gi = g;
    float* go = g + h;
    float* gf = g + 2 * h;
    float* gc = g + 3 * h;
    const std::optional<float>& clip = p_.attributes.clip;
    if (peep != nullptr) {
      for (int64_t j = 0; j < h; ++j) {
        gi[j] += peep[j] * cb[j];
        gf[j] += peep[2 * h + j] * cb[j];
      }
    }
    ActivateArray(f[0], clip, gi, h);
    if (p_.attributes.input_forget) {
      for (int64_t j = 0; j < h; ++j) gf[j] = 1.0f - gi[j];
    } else {
      ActivateArray(f[0], clip, gf, h);
    }
    ActivateArray(f[1], clip, gc, h);
    for (int64_t j = 0; j < h; ++j) cb[j] = gf[j] * cb[j] + gi[j] * gc[j];
    if (peep != nullptr) {
      for (int64_t j = 0; j < h; ++j) go[j] += peep[h + j] * cb[j];
    }
    ActivateArray(f[0], clip, go, h);
    std::copy(cb, cb + h, temp);
    ActivateArray(f[2], std::nullopt, temp, h);
    for (int64_t j = 0; j < h; ++j) hb[j] = go[j] * temp[j];
  }

  static float Load(const void* base, int64_t i) { return static_cast<const float*>(base)[i]; }
  static void Store(void* base, int64_t i, float v) { static_cast<float*>(base)[i] = v; }
  int64_t Length(int64_t b) const { return p_.has_sequence_lens ? in_.sequence_lens[b] : p_.seq; }
  int64_t StateIndex(int64_t dir, int64_t b, int64_t j) const {
    return p_.attributes.layout == 1 ? (b * p_.directions + dir) * p_.hidden + j
                                     : (dir * p_.batch + b) * p_.hidden + j;
  }
  int64_t YIndex(int64_t t, int64_t dir, int64_t b) const {
    return p_.attributes.layout == 1 ? ((b * p_.seq + t) * p_.directions + dir) * p_.hidden
                                     : ((t * p_.directions + dir) * p_.batch + b) * p_.hidden;
  }
  // The row of X (and of the input projection) of step t of batch entry b.
  int64_t XRow(int64_t t, int64_t b) const {
    return p_.attributes.layout == 1 ? b * p_.seq + t : t * p_.batch + b;
  }

  const RnnPlan& p_;
  const RnnInputs& in_;
  const RnnOutputs& out_;
  FloatWorkspace ws_;
};

}  // namespace

Status Rnn(const RnnPlan& plan, const RnnInputs& inputs, const RnnOutputs& outputs,
           void* workspace) {
  if (plan.has_sequence_lens) {
    for (int64_t b = 0; b < plan.batch; ++b) {
      const int32_t len = inputs.sequence_lens[b];
      if (len < 0 || len > plan.seq) {
        return MakeStatus(StatusCode::kInvalidArgument, CellName(plan.attributes.cell),
                          ": sequence_lens[", b, "] is ", len, ", expected 0..", plan.seq);
      }
    }
  }
  if (!plan.gemms.empty()) {
    FloatRecurrence recurrence(plan, inputs, outputs, workspace);
    for (int64_t dir = 0; dir < plan.directions; ++dir) {
      NXRT_RETURN_IF_ERROR(recurrence.RunDirection(dir));
    }
    return Status::Ok();
  }
  const std::string_view op = CellName(plan.attributes.cell);
  return math::DispatchType<math::FloatTypes>(plan.dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Recurrence<T> recurrence(plan, inputs, outputs, workspace);
    for (int64_t dir = 0; dir < plan.directions; ++dir) recurrence.RunDirection(dir);
  });
}

}  // namespace nxrt::cpu::nn
