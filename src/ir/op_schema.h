// ir/op_schema.h: which version of an ONNX operator's schema is in force at a given opset.
//
// Layer: nxrt_ir. Answers "node X (op, domain) at opset N uses the schema of version S" (S is the
// schema's since_version, the number kernels are registered under), and which ops exist at all.
//
// Sources: libonnx's schema registry (Debian's ONNX 1.12: ai.onnx opsets 1-17, ai.onnx.ml 1-3,
// ai.onnx.preview.training 1), plus nxrt's own table of the schema versions ONNX added after 1.12:
// ai.onnx opsets 18-21 and ai.onnx.ml 4-5, taken from the operator set lists of ONNX's
// onnx/defs/operator_sets.h and operator_sets_ml.h (the "Version N of the ... operator set"
// sections of ONNX's docs/Changelog.md). To support a newer opset, add its rows to that table in
// op_schema.cpp and raise MaxKnownOpset.
//
// Domains are accepted in either spelling ("" or "ai.onnx" for the default domain). Custom domains
// (com.microsoft, ...) have no schemas here: every query answers "unknown".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace onnx {
class OpSchema;
}  // namespace onnx

namespace nxrt::ir {

// Builds libonnx's operator schema registry now: libonnx makes every schema of every opset at its
// first lookup (about two thirds of a small model's session creation, 15-30 ms here). Idempotent
// and thread-safe (the registry is a function-local static).
void LoadOperatorSchemas();

// The highest opset of `domain` whose operator versions nxrt knows: 21 for ai.onnx, 5 for
// ai.onnx.ml, libonnx's range for its other domains (1 for ai.onnx.preview.training and
// ai.onnx.training); -1 for any other domain.
int MaxKnownOpset(std::string_view domain);

// The since_version of the schema of `op_type` in `domain` that is in force at `opset`: the
// largest schema version <= opset. -1 when the op is unknown in that domain or all its versions
// are newer than `opset`. An opset above MaxKnownOpset(domain) is answered as MaxKnownOpset: the
// newest version nxrt knows (newer ONNX releases may have added a version nxrt does not know).
// Examples: ("", "Add", 17) -> 14, ("", "Add", 6) -> 6, ("", "ReduceMean", 18) -> 18.
int SinceVersion(std::string_view domain, std::string_view op_type, int64_t opset);

// One version of an operator's schema.
struct OpSchemaVersion {
  int since_version = 0;
  // The last opset this version is in force at: the next version's since_version - 1, or
  // MaxKnownOpset(domain) for the newest known version.
  int last_opset = 0;
  // ONNX deprecated the op at this version (e.g. Upsample-10, Scatter-11): a model at such an
  // opset should not use it.
  bool deprecated = false;
};

// True when `op_type` has a schema in `domain` at any opset nxrt knows.
bool IsKnownOp(std::string_view domain, std::string_view op_type);

// All known schema versions of `op_type` in `domain`, ascending by since_version; empty when the
// op is unknown. For kernel tables: a kernel written for version v covers opsets
// [v.since_version, v.last_opset].
std::vector<OpSchemaVersion> OpSchemaVersions(std::string_view domain, std::string_view op_type);

// The schema version in force at `opset` (as SinceVersion), or nullopt when there is none.
std::optional<OpSchemaVersion> SchemaAt(std::string_view domain, std::string_view op_type,
                                        int64_t opset);

// The attributes of the schema in force at `opset` that have a constant default value, each with
// its name, type and that value (INT, FLOAT, STRING and their lists), sorted by name. Attributes
// whose default depends on the inputs (Conv's kernel_shape) have none and are not listed. Empty
// for unknown ops and custom domains. Sources: the default_value of libonnx's OpSchema
// attributes, plus nxrt's rows for the attributes that versions after ONNX 1.12 added, changed
// (GridSample-20 mode "linear") or removed (DFT-20 axis).
std::vector<Attribute> AttributeDefaults(std::string_view domain, std::string_view op_type,
                                         int64_t opset);

// Whether the schema in force at `opset` declares an attribute `name` (with or without a
// default). nullopt when nxrt does not know that schema's attribute list: unknown ops, custom
// domains, and versions after ONNX 1.12 (libonnx lacks them).
std::optional<bool> SchemaDeclaresAttribute(std::string_view domain, std::string_view op_type,
                                            int64_t opset, std::string_view name);

// How many inputs and outputs a node of an operator may have (trailing empty names count, as in
// the node's proto). A max of std::numeric_limits<int>::max() means no limit (a variadic last
// parameter).
struct OpArity {
  int min_inputs = 0;
  int max_inputs = 0;
  int min_outputs = 0;
  int max_outputs = 0;
};

// The arity of the schema in force at `opset`: libonnx's for the versions it has, nxrt's table
// (op_schema.cpp, from the ONNX spec) for the versions after ONNX 1.12. nullopt for unknown ops,
// custom domains, and opsets before the op's first version.
std::optional<OpArity> ArityAt(std::string_view domain, std::string_view op_type, int64_t opset);

// libonnx's schema of `op_type` in `domain` in force at `opset` (its inputs, outputs, type
// constraints and attributes), or nullptr when libonnx does not have that version: unknown ops,
// custom domains, and ops that changed after ONNX 1.12 when `opset` is past libonnx's range
// (their newer version is only in nxrt's table). The registry owns the schema for the process.
const onnx::OpSchema* LibonnxSchemaAt(std::string_view domain, std::string_view op_type,
                                      int64_t opset);

// An operator's formal parameters and type constraints: what kernel registries match a node's
// types against (ORT's KernelRegistry resolves a kernel's type constraint "T" to the inputs and
// outputs whose formal type string is "T") and what OrtEpApi::GetOpSchema shows plugins.
struct OperatorSignature {
  enum class Option : uint8_t { kSingle, kOptional, kVariadic };
  struct Formal {
    std::string name;      // "A", "inputs"
    std::string type_str;  // a constraint name ("T") or a type ("tensor(int64)")
    Option option = Option::kSingle;
  };
  struct Constraint {
    std::string name;                     // "T"
    std::vector<std::string> types;       // "tensor(float)", ... in the schema's order
    std::vector<size_t> inputs, outputs;  // formal parameters whose type_str is `name`
  };
  int since_version = 0;  // of the schema in force (SinceVersion)
  std::vector<Formal> inputs;
  std::vector<Formal> outputs;
  std::vector<Constraint> constraints;  // in declaration order
  // True when the version in force is newer than libonnx's (opsets 18-21): the parameters and
  // constraints are those of libonnx's newest version of the op, which may lack types the newer
  // version allows (float8, int4).
  bool from_older_version = false;

  // The constraint named `name`, or nullptr.
  const Constraint* FindConstraint(std::string_view name) const;
  // The formal parameter that actual input (output) `index` binds to: a variadic last parameter
  // takes every index from its position on. nullopt past the last parameter.
  std::optional<size_t> FormalOfInput(size_t index) const;
  std::optional<size_t> FormalOfOutput(size_t index) const;
};

// The signature of `op_type` in `domain` in force at `opset`; nullopt when the op has no schema
// version at that opset or libonnx has none of its versions (custom domains).
std::optional<OperatorSignature> SignatureAt(std::string_view domain, std::string_view op_type,
                                             int64_t opset);

}  // namespace nxrt::ir
