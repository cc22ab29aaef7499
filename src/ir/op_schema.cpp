// ir/op_schema.cpp: operator schema versions from libonnx's registry plus nxrt's table for the
// opsets libonnx 1.12 does not know (see ir/op_schema.h).
//
// Layer: nxrt_ir. Each query walks libonnx's versions of one op (a few registry lookups) and the
// rows of kNewerVersions below; nothing is copied out of the registry.
#include "ir/op_schema.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "onnx/defs/schema.h"

namespace nxrt::ir {
namespace {

constexpr std::string_view kMlDomain = "ai.onnx.ml";
// The newest opsets kNewerVersions covers.
constexpr int kMaxOnnxOpset = 21;
constexpr int kMaxMlOpset = 5;

// An arity bound without limit (a variadic last parameter), as libonnx's OpSchema writes it.
constexpr int kVariadic = std::numeric_limits<int>::max();

struct NewerVersion {
  std::string_view domain;
  std::string_view op_type;
  int since_version;
  bool deprecated;
  OpArity arity;
};

// Schema versions ONNX added after 1.12 (ONNX 1.13-1.16), one row per (op, version), with the
// number of inputs and outputs each allows ({min inputs, max inputs, min outputs, max outputs}).
// Sources: the OpSet_Onnx_ver18..21 and OpSet_OnnxML_ver4..5 lists of
// onnx/defs/operator_sets*.h; the Inputs and Outputs sections of each version in ONNX's
// docs/Operators.md and docs/Changelog.md.
constexpr NewerVersion kNewerVersions[] = {
    // ai.onnx 18 (ONNX 1.13): reductions take `axes` as an input, Split `num_outputs`, Pad `axes`,
    // Resize `antialias`/`keep_aspect_ratio_policy`/`axes`, ScatterND/ScatterElements max/min,
    // new ops.
    {"", "BitwiseAnd", 18, false, {2, 2, 1, 1}},
    {"", "BitwiseNot", 18, false, {1, 1, 1, 1}},
    {"", "BitwiseOr", 18, false, {2, 2, 1, 1}},
    {"", "BitwiseXor", 18, false, {2, 2, 1, 1}},
    {"", "CenterCropPad", 18, false, {2, 2, 1, 1}},
    {"", "Col2Im", 18, false, {3, 3, 1, 1}},
    {"", "GroupNormalization", 18, false, {3, 3, 1, 1}},
    {"", "LpPool", 18, false, {1, 1, 1, 1}},
    {"", "Mish", 18, false, {1, 1, 1, 1}},
    {"", "OptionalGetElement", 18, false, {1, 1, 1, 1}},
    {"", "OptionalHasElement", 18, false, {0, 1, 1, 1}},
    {"", "Pad", 18, false, {2, 4, 1, 1}},
    {"", "ReduceL1", 18, false, {1, 2, 1, 1}},
    {"", "ReduceL2", 18, false, {1, 2, 1, 1}},
    {"", "ReduceLogSum", 18, false, {1, 2, 1, 1}},
    {"", "ReduceLogSumExp", 18, false, {1, 2, 1, 1}},
    {"", "ReduceMax", 18, false, {1, 2, 1, 1}},
    {"", "ReduceMean", 18, false, {1, 2, 1, 1}},
    {"", "ReduceMin", 18, false, {1, 2, 1, 1}},
    {"", "ReduceProd", 18, false, {1, 2, 1, 1}},
    {"", "ReduceSumSquare", 18, false, {1, 2, 1, 1}},
    {"", "Resize", 18, false, {1, 4, 1, 1}},
    {"", "ScatterElements", 18, false, {3, 3, 1, 1}},
    {"", "ScatterND", 18, false, {3, 3, 1, 1}},
    {"", "Split", 18, false, {1, 2, 1, kVariadic}},
    // ai.onnx 19 (ONNX 1.14): float8 types, Pad wrap mode, Resize half_pixel_symmetric,
    // AveragePool dilations, Equal on strings, DeformConv.
    {"", "AveragePool", 19, false, {1, 1, 1, 1}},
    {"", "Cast", 19, false, {1, 1, 1, 1}},
    {"", "CastLike", 19, false, {2, 2, 1, 1}},
    {"", "Constant", 19, false, {0, 0, 1, 1}},
    {"", "DeformConv", 19, false, {3, 5, 1, 1}},
    {"", "DequantizeLinear", 19, false, {2, 3, 1, 1}},
    {"", "Equal", 19, false, {2, 2, 1, 1}},
    {"", "Identity", 19, false, {1, 1, 1, 1}},
    {"", "If", 19, false, {1, 1, 1, kVariadic}},
    {"", "Loop", 19, false, {2, kVariadic, 1, kVariadic}},
    {"", "Pad", 19, false, {2, 4, 1, 1}},
    {"", "QuantizeLinear", 19, false, {2, 3, 1, 1}},
    {"", "Reshape", 19, false, {2, 2, 1, 1}},
    {"", "Resize", 19, false, {1, 4, 1, 1}},
    {"", "Scan", 19, false, {1, kVariadic, 1, kVariadic}},
    {"", "Shape", 19, false, {1, 1, 1, 1}},
    {"", "Size", 19, false, {1, 1, 1, 1}},
    // ai.onnx 20 (ONNX 1.15).
    {"", "AffineGrid", 20, false, {2, 2, 1, 1}},
    {"", "ConstantOfShape", 20, false, {1, 1, 1, 1}},
    {"", "DFT", 20, false, {1, 3, 1, 1}},
    {"", "Gelu", 20, false, {1, 1, 1, 1}},
    {"", "GridSample", 20, false, {2, 2, 1, 1}},
    {"", "ImageDecoder", 20, false, {1, 1, 1, 1}},
    {"", "IsInf", 20, false, {1, 1, 1, 1}},
    {"", "IsNaN", 20, false, {1, 1, 1, 1}},
    {"", "ReduceMax", 20, false, {1, 2, 1, 1}},
    {"", "ReduceMin", 20, false, {1, 2, 1, 1}},
    {"", "RegexFullMatch", 20, false, {1, 1, 1, 1}},
    {"", "StringConcat", 20, false, {2, 2, 1, 1}},
    {"", "StringSplit", 20, false, {1, 1, 2, 2}},
    // ai.onnx 21 (ONNX 1.16): int4/uint4 types, blocked quantization, GroupNormalization
    // per-channel scale.
    {"", "Cast", 21, false, {1, 1, 1, 1}},
    {"", "CastLike", 21, false, {2, 2, 1, 1}},
    {"", "Constant", 21, false, {0, 0, 1, 1}},
    {"", "ConstantOfShape", 21, false, {1, 1, 1, 1}},
    {"", "DequantizeLinear", 21, false, {2, 3, 1, 1}},
    {"", "Flatten", 21, false, {1, 1, 1, 1}},
    {"", "GroupNormalization", 21, false, {3, 3, 1, 1}},
    {"", "Identity", 21, false, {1, 1, 1, 1}},
    {"", "If", 21, false, {1, 1, 1, kVariadic}},
    {"", "Loop", 21, false, {2, kVariadic, 1, kVariadic}},
    {"", "Pad", 21, false, {2, 4, 1, 1}},
    {"", "QLinearMatMul", 21, false, {8, 8, 1, 1}},
    {"", "QuantizeLinear", 21, false, {2, 3, 1, 1}},
    {"", "Reshape", 21, false, {2, 2, 1, 1}},
    {"", "Scan", 21, false, {1, kVariadic, 1, kVariadic}},
    {"", "Shape", 21, false, {1, 1, 1, 1}},
    {"", "Size", 21, false, {1, 1, 1, 1}},
    {"", "Squeeze", 21, false, {1, 2, 1, 1}},
    {"", "Transpose", 21, false, {1, 1, 1, 1}},
    {"", "Unsqueeze", 21, false, {2, 2, 1, 1}},
    // ai.onnx.ml 4 (ONNX 1.15) and 5 (ONNX 1.16, which deprecates the two old tree ensembles in
    // favour of TreeEnsemble).
    {kMlDomain, "LabelEncoder", 4, false, {1, 1, 1, 1}},
    {kMlDomain, "TreeEnsemble", 5, false, {1, 1, 1, 1}},
    {kMlDomain, "TreeEnsembleClassifier", 5, true, {1, 1, 2, 2}},
    {kMlDomain, "TreeEnsembleRegressor", 5, true, {1, 1, 1, 1}},
};

// An attribute default that a schema version after ONNX 1.12 added or changed (ai.onnx only);
// type kUndefined: the version removed the attribute. Source: the attribute lists of those
// versions in ONNX's docs/Changelog.md.
struct NewerDefault {
  std::string_view op_type;
  int since_version;
  std::string_view name;
  Attribute::Type type;
  int64_t i = 0;
  float f = 0;
  std::string_view s = {};
};

constexpr Attribute::Type kInt = Attribute::Type::kInt;
constexpr Attribute::Type kFloat = Attribute::Type::kFloat;
constexpr Attribute::Type kString = Attribute::Type::kString;
constexpr Attribute::Type kRemoved = Attribute::Type::kUndefined;

const NewerDefault kNewerDefaults[] = {
    {"GroupNormalization", 18, "epsilon", kFloat, 0, 1e-5f},
    {"LpPool", 18, "ceil_mode", kInt, 0},
    {"ReduceL1", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceL2", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceLogSum", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceLogSumExp", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceMax", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceMean", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceMin", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceProd", 18, "noop_with_empty_axes", kInt, 0},
    {"ReduceSumSquare", 18, "noop_with_empty_axes", kInt, 0},
    {"Resize", 18, "antialias", kInt, 0},
    {"Resize", 18, "keep_aspect_ratio_policy", kString, 0, 0, "stretch"},
    {"Cast", 19, "saturate", kInt, 1},
    {"CastLike", 19, "saturate", kInt, 1},
    {"DeformConv", 19, "group", kInt, 1},
    {"DeformConv", 19, "offset_group", kInt, 1},
    {"QuantizeLinear", 19, "saturate", kInt, 1},
    {"AffineGrid", 20, "align_corners", kInt, 0},
    {"DFT", 20, "axis", kRemoved},  // an input from version 20
    {"Gelu", 20, "approximate", kString, 0, 0, "none"},
    {"GridSample", 20, "mode", kString, 0, 0, "linear"},  // "bilinear" before
    {"ImageDecoder", 20, "pixel_format", kString, 0, 0, "RGB"},
    {"DequantizeLinear", 21, "block_size", kInt, 0},
    {"GroupNormalization", 21, "stash_type", kInt, 1},
    {"QuantizeLinear", 21, "block_size", kInt, 0},
    {"QuantizeLinear", 21, "output_dtype", kInt, 0},
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

// The IR form of a libonnx default value; nullopt for kinds the defaults do not use.
std::optional<Attribute> FromDefaultValue(const std::string& name,
                                          const onnx::AttributeProto& proto) {
  Attribute attr;
  attr.name = name;
  switch (proto.type()) {
    case onnx::AttributeProto::INT:
      attr.type = Attribute::Type::kInt;
      attr.i = proto.i();
      break;
    case onnx::AttributeProto::FLOAT:
      attr.type = Attribute::Type::kFloat;
      attr.f = proto.f();
      break;
    case onnx::AttributeProto::STRING:
      attr.type = Attribute::Type::kString;
      attr.s = proto.s();
      break;
    case onnx::AttributeProto::INTS:
      attr.type = Attribute::Type::kInts;
      attr.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      attr.type = Attribute::Type::kFloats;
      attr.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case onnx::AttributeProto::STRINGS:
      attr.type = Attribute::Type::kStrings;
      attr.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    default:
      return std::nullopt;
  }
  return attr;
}

}  // namespace

void LoadOperatorSchemas() {
  // Any lookup makes libonnx register every schema (OpSchemaRegistry::map's first call).
  onnx::OpSchemaRegistry::Schema("Add", 1, "");
}

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

std::vector<Attribute> AttributeDefaults(std::string_view domain, std::string_view op_type,
                                         int64_t opset) {
  const int since = SinceVersion(domain, op_type, opset);
  if (since < 0) return {};
  domain = Canonical(domain);
  const std::string domain_name(domain);
  std::map<std::string, Attribute, std::less<>> by_name;
  // libonnx's newest version <= since: the version itself, or the one the newer rows amend.
  const int libonnx_opset = std::min(since, LibonnxMaxOpset(domain_name));
  const onnx::OpSchema* schema =
      libonnx_opset < 1
          ? nullptr
          : onnx::OpSchemaRegistry::Schema(std::string(op_type), libonnx_opset, domain_name);
  if (schema != nullptr) {
    for (const auto& [name, attr] : schema->attributes()) {
      if (attr.required) continue;
      if (std::optional<Attribute> value = FromDefaultValue(name, attr.default_value)) {
        by_name.emplace(name, std::move(*value));
      }
    }
  }
  const int amended_from = schema != nullptr ? schema->SinceVersion() : 0;
  for (const NewerDefault& row : kNewerDefaults) {
    if (!domain.empty() || row.op_type != op_type || row.since_version <= amended_from ||
        row.since_version > since) {
      continue;
    }
    const std::string name(row.name);
    if (row.type == kRemoved) {
      by_name.erase(name);
      continue;
    }
    Attribute attr;
    attr.name = name;
    attr.type = row.type;
    attr.i = row.i;
    attr.f = row.f;
    attr.s = std::string(row.s);
    by_name.insert_or_assign(name, std::move(attr));
  }
  std::vector<Attribute> out;
  out.reserve(by_name.size());
  for (auto& [name, attr] : by_name) out.push_back(std::move(attr));
  return out;
}

std::optional<OpArity> ArityAt(std::string_view domain, std::string_view op_type,
                               int64_t opset) {
  if (const onnx::OpSchema* schema = LibonnxSchemaAt(domain, op_type, opset)) {
    return OpArity{schema->min_input(), schema->max_input(), schema->min_output(),
                   schema->max_output()};
  }
  const int since = SinceVersion(domain, op_type, opset);
  domain = Canonical(domain);
  for (const NewerVersion& row : kNewerVersions) {
    if (row.domain == domain && row.op_type == op_type && row.since_version == since) {
      return row.arity;
    }
  }
  return std::nullopt;
}

std::optional<bool> SchemaDeclaresAttribute(std::string_view domain, std::string_view op_type,
                                            int64_t opset, std::string_view name) {
  const onnx::OpSchema* schema = LibonnxSchemaAt(domain, op_type, opset);
  if (schema == nullptr) return std::nullopt;
  return schema->attributes().count(std::string(name)) != 0;
}

std::vector<OpSchemaVersion> OpSchemaVersions(std::string_view domain, std::string_view op_type) {
  return CollectVersions(domain, op_type);
}

const onnx::OpSchema* LibonnxSchemaAt(std::string_view domain, std::string_view op_type,
                                      int64_t opset) {
  const int since = SinceVersion(domain, op_type, opset);
  domain = Canonical(domain);
  const std::string domain_name(domain);
  if (since < 0 || since > LibonnxMaxOpset(domain_name)) return nullptr;
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(std::string(op_type), since, domain_name);
  if (schema == nullptr || schema->SinceVersion() != since) return nullptr;
  return schema;
}

namespace {

std::optional<size_t> FormalOf(const std::vector<OperatorSignature::Formal>& formals,
                               size_t index) {
  if (index < formals.size()) return index;
  if (!formals.empty() && formals.back().option == OperatorSignature::Option::kVariadic) {
    return formals.size() - 1;
  }
  return std::nullopt;
}

OperatorSignature::Formal FormalFrom(const onnx::OpSchema::FormalParameter& param) {
  OperatorSignature::Formal formal;
  formal.name = param.GetName();
  formal.type_str = param.GetTypeStr();
  switch (param.GetOption()) {
    case onnx::OpSchema::Optional: formal.option = OperatorSignature::Option::kOptional; break;
    case onnx::OpSchema::Variadic: formal.option = OperatorSignature::Option::kVariadic; break;
    default: formal.option = OperatorSignature::Option::kSingle; break;
  }
  return formal;
}

}  // namespace

const OperatorSignature::Constraint* OperatorSignature::FindConstraint(
    std::string_view name) const {
  for (const Constraint& c : constraints) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::optional<size_t> OperatorSignature::FormalOfInput(size_t index) const {
  return FormalOf(inputs, index);
}

std::optional<size_t> OperatorSignature::FormalOfOutput(size_t index) const {
  return FormalOf(outputs, index);
}

std::optional<OperatorSignature> SignatureAt(std::string_view domain, std::string_view op_type,
                                             int64_t opset) {
  const int since = SinceVersion(domain, op_type, opset);
  if (since < 0) return std::nullopt;
  const std::string domain_name(Canonical(domain));
  const int libonnx_max = LibonnxMaxOpset(domain_name);
  if (libonnx_max < 1) return std::nullopt;
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(std::string(op_type), std::min(since, libonnx_max),
                                     domain_name);
  if (schema == nullptr) return std::nullopt;
  OperatorSignature sig;
  sig.since_version = since;
  sig.from_older_version = schema->SinceVersion() != since;
  for (const auto& param : schema->inputs()) sig.inputs.push_back(FormalFrom(param));
  for (const auto& param : schema->outputs()) sig.outputs.push_back(FormalFrom(param));
  for (const auto& tc : schema->typeConstraintParams()) {
    OperatorSignature::Constraint c;
    c.name = tc.type_param_str;
    c.types = tc.allowed_type_strs;
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      if (sig.inputs[i].type_str == c.name) c.inputs.push_back(i);
    }
    for (size_t i = 0; i < sig.outputs.size(); ++i) {
      if (sig.outputs[i].type_str == c.name) c.outputs.push_back(i);
    }
    sig.constraints.push_back(std::move(c));
  }
  return sig;
}

}  // namespace nxrt::ir
