// ir/op_schema.cpp: operator schema versions from libonnx's registry plus nxrt's table for the
// opsets libonnx 1.12 does not know (see ir/op_schema.h).
//
// Layer: nxrt_ir. Each query walks libonnx's versions of one op (a few registry lookups) and the
// rows of kNewerVersions below; nothing is copied out of the registry.
#include "ir/op_schema.h"

#include <algorithm>
#include <string>

#include "onnx/defs/schema.h"

namespace nxrt::ir {
namespace {

constexpr std::string_view kMlDomain = "ai.onnx.ml";
// The newest opsets kNewerVersions covers.
constexpr int kMaxOnnxOpset = 21;
constexpr int kMaxMlOpset = 5;

struct NewerVersion {
  std::string_view domain;
  std::string_view op_type;
  int since_version;
  bool deprecated;
};

// Schema versions ONNX added after 1.12 (ONNX 1.13-1.16), one row per (op, version). Source: the
// OpSet_Onnx_ver18..21 and OpSet_OnnxML_ver4..5 lists of onnx/defs/operator_sets*.h.
constexpr NewerVersion kNewerVersions[] = {
    // ai.onnx 18 (ONNX 1.13): reductions take `axes` as an input, Split `num_outputs`, Pad `axes`,
    // Resize `antialias`/`keep_aspect_ratio_policy`/`axes`, ScatterND/ScatterElements max/min,
    // new ops.
    {"", "BitwiseAnd", 18, false},
    {"", "BitwiseNot", 18, false},
    {"", "BitwiseOr", 18, false},
    {"", "BitwiseXor", 18, false},
    {"", "CenterCropPad", 18, false},
    {"", "Col2Im", 18, false},
    {"", "GroupNormalization", 18, false},
    {"", "LpPool", 18, false},
    {"", "Mish", 18, false},
    {"", "OptionalGetElement", 18, false},
    {"", "OptionalHasElement", 18, false},
    {"", "Pad", 18, false},
    {"", "ReduceL1", 18, false},
    {"", "ReduceL2", 18, false},
    {"", "ReduceLogSum", 18, false},
    {"", "ReduceLogSumExp", 18, false},
    {"", "ReduceMax", 18, false},
    {"", "ReduceMean", 18, false},
    {"", "ReduceMin", 18, false},
    {"", "ReduceProd", 18, false},
    {"", "ReduceSumSquare", 18, false},
    {"", "Resize", 18, false},
    {"", "ScatterElements", 18, false},
    {"", "ScatterND", 18, false},
    {"", "Split", 18, false},
    // ai.onnx 19 (ONNX 1.14): float8 types, Pad wrap mode, Resize half_pixel_symmetric,
    // AveragePool dilations, Equal on strings, DeformConv.
    {"", "AveragePool", 19, false},
    {"", "Cast", 19, false},
    {"", "CastLike", 19, false},
    {"", "Constant", 19, false},
    {"", "DeformConv", 19, false},
    {"", "DequantizeLinear", 19, false},
    {"", "Equal", 19, false},
    {"", "Identity", 19, false},
    {"", "If", 19, false},
    {"", "Loop", 19, false},
    {"", "Pad", 19, false},
    {"", "QuantizeLinear", 19, false},
    {"", "Reshape", 19, false},
    {"", "Resize", 19, false},
    {"", "Scan", 19, false},
    {"", "Shape", 19, false},
    {"", "Size", 19, false},
    // ai.onnx 20 (ONNX 1.15).
    {"", "AffineGrid", 20, false},
    {"", "ConstantOfShape", 20, false},
    {"", "DFT", 20, false},
    {"", "Gelu", 20, false},
    {"", "GridSample", 20, false},
    {"", "ImageDecoder", 20, false},
    {"", "IsInf", 20, false},
    {"", "IsNaN", 20, false},
    {"", "ReduceMax", 20, false},
    {"", "ReduceMin", 20, false},
    {"", "RegexFullMatch", 20, false},
    {"", "StringConcat", 20, false},
    {"", "StringSplit", 20, false},
    // ai.onnx 21 (ONNX 1.16): int4/uint4 types, blocked quantization, GroupNormalization
    // per-channel scale.
    {"", "Cast", 21, false},
    {"", "CastLike", 21, false},
    {"", "Constant", 21, false},
    {"", "ConstantOfShape", 21, false},
    {"", "DequantizeLinear", 21, false},
    {"", "Flatten", 21, false},
    {"", "GroupNormalization", 21, false},
    {"", "Identity", 21, false},
    {"", "If", 21, false},
    {"", "Loop", 21, false},
    {"", "Pad", 21, false},
    {"", "QLinearMatMul", 21, false},
    {"", "QuantizeLinear", 21, false},
    {"", "Reshape", 21, false},
    {"", "Scan", 21, false},
    {"", "Shape", 21, false},
    {"", "Size", 21, false},
    {"", "Squeeze", 21, false},
    {"", "Transpose", 21, false},
    {"", "Unsqueeze", 21, false},
    // ai.onnx.ml 4 (ONNX 1.15) and 5 (ONNX 1.16, which deprecates the two old tree ensembles in
    // favour of TreeEnsemble).
    {kMlDomain, "LabelEncoder", 4, false},
    {kMlDomain, "TreeEnsemble", 5, false},
    {kMlDomain, "TreeEnsembleClassifier", 5, true},
    {kMlDomain, "TreeEnsembleRegressor", 5, true},
};

std::string_view Canonical(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

// The highest opset of `domain` libonnx has schemas for, or -1.
int LibonnxMaxOpset(const std::string& domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(domain);
  return it == ranges.end() ? -1 : it->second.second;
}

// All known versions of `op_type` in `domain`, ascending: libonnx's, then kNewerVersions'.
std::vector<OpSchemaVersion> CollectVersions(std::string_view domain, std::string_view op_type) {
  domain = Canonical(domain);
  const std::string domain_name(domain);
  const std::string op_name(op_type);
  std::vector<OpSchemaVersion> versions;
  // Schema(op, v, domain) is the newest version <= v: step down from the top.
  for (int opset = LibonnxMaxOpset(domain_name); opset >= 1;) {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op_name, opset, domain_name);
    if (schema == nullptr) break;
    versions.push_back({schema->SinceVersion(), 0, schema->Deprecated()});
    opset = schema->SinceVersion() - 1;
  }
  std::reverse(versions.begin(), versions.end());
  for (const NewerVersion& row : kNewerVersions) {
    if (row.domain == domain && row.op_type == op_type) {
      versions.push_back({row.since_version, 0, row.deprecated});
    }
  }
  const int max_opset = MaxKnownOpset(domain);
  for (size_t i = 0; i < versions.size(); ++i) {
    versions[i].last_opset =
        i + 1 < versions.size() ? versions[i + 1].since_version - 1 : max_opset;
  }
  return versions;
}

}  // namespace

int MaxKnownOpset(std::string_view domain) {
  domain = Canonical(domain);
  if (domain.empty()) return kMaxOnnxOpset;
  if (domain == kMlDomain) return kMaxMlOpset;
  return LibonnxMaxOpset(std::string(domain));
}

std::optional<OpSchemaVersion> SchemaAt(std::string_view domain, std::string_view op_type,
                                        int64_t opset) {
  const std::vector<OpSchemaVersion> versions = CollectVersions(domain, op_type);
  const int64_t effective = std::min<int64_t>(opset, MaxKnownOpset(domain));
  // The last version whose since_version <= effective.
  auto it = std::upper_bound(
      versions.begin(), versions.end(), effective,
      [](int64_t v, const OpSchemaVersion& s) { return v < s.since_version; });
  if (it == versions.begin()) return std::nullopt;
  return *(it - 1);
}

int SinceVersion(std::string_view domain, std::string_view op_type, int64_t opset) {
  std::optional<OpSchemaVersion> schema = SchemaAt(domain, op_type, opset);
  return schema ? schema->since_version : -1;
}

bool IsKnownOp(std::string_view domain, std::string_view op_type) {
  return !CollectVersions(domain, op_type).empty();
}

std::vector<OpSchemaVersion> OpSchemaVersions(std::string_view domain, std::string_view op_type) {
  return CollectVersions(domain, op_type);
}

}  // namespace nxrt::ir
