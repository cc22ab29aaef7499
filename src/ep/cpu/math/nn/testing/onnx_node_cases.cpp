// ep/cpu/math/nn/testing/onnx_node_cases.cpp: the generated ONNX backend node cases and their
// lookups.
#include "ep/cpu/math/nn/testing/onnx_node_cases.h"

#include <limits>
#include <span>

namespace nxrt::cpu::nn::testing {

namespace {

[[maybe_unused]] constexpr double kInf = std::numeric_limits<double>::infinity();
[[maybe_unused]] constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::span<const NodeCase> AllCases() {
#include "ep/cpu/math/nn/testing/onnx_node_cases.inc"
  return kCases;
}

const NodeCaseTensor& Absent() {
  static const NodeCaseTensor* const absent = new NodeCaseTensor();
  return *absent;
}

template <typename V>
const V* Find(const std::vector<std::pair<std::string, V>>& list, const std::string& key) {
  for (const auto& [name, value] : list) {
    if (name == key) return &value;
  }
  return nullptr;
}

}  // namespace

std::vector<int64_t> NodeCase::Ints(const std::string& key, std::vector<int64_t> fallback) const {
  const auto* v = Find(ints, key);
  return v ? *v : fallback;
}

int64_t NodeCase::Int(const std::string& key, int64_t fallback) const {
  const auto* v = Find(ints, key);
  return v && !v->empty() ? v->front() : fallback;
}

std::vector<double> NodeCase::Floats(const std::string& key, std::vector<double> fallback) const {
  const auto* v = Find(floats, key);
  return v ? *v : fallback;
}

double NodeCase::Float(const std::string& key, double fallback) const {
  const auto* v = Find(floats, key);
  return v && !v->empty() ? v->front() : fallback;
}

std::vector<std::string> NodeCase::Strings(const std::string& key,
                                           std::vector<std::string> fallback) const {
  const auto* v = Find(strings, key);
  return v ? *v : fallback;
}

std::string NodeCase::String(const std::string& key, const std::string& fallback) const {
  const auto* v = Find(strings, key);
  return v && !v->empty() ? v->front() : fallback;
}

const NodeCaseTensor& NodeCase::Input(size_t i) const {
  return i < inputs.size() ? inputs[i] : Absent();
}

const NodeCaseTensor& NodeCase::Output(size_t i) const {
  return i < outputs.size() ? outputs[i] : Absent();
}

std::vector<const NodeCase*> OnnxNodeCases(const std::string& op) {
  std::vector<const NodeCase*> out;
  for (const NodeCase& c : AllCases()) {
    if (c.op == op) out.push_back(&c);
  }
  return out;
}

}  // namespace nxrt::cpu::nn::testing
