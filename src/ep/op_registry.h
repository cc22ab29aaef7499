// ep/op_registry.h: which kernel runs which operator: (domain, op_type, opset range, dtypes) →
// kernel factory, with the reason when nothing fits.
//
// Layer: nxrt_ep. Each native EP owns one OpRegistry and fills it from one explicit table, a
// function `Status RegisterXKernels(OpRegistry&)` called from the EP's constructor or
// Initialize, one Register call per kernel (op families may have their own small functions
// that the table calls). There are no self-registering globals.
//
// Lookup (Find) for a node with effective opset N: among the entries for (domain, op_type)
// whose range [since_version, until_version] contains N, take them by since_version descending
// (then registration order) and return the first whose type constraints accept the node's
// input and output dtypes and whose optional `check` accepts the node. When none does, the
// error says which of these failed, with the data to fix it:
//   no kernel for op 'Custom' (domain 'com.example')
//   no kernel for Add at opset 5; kernels cover opsets [7,12], [13,13], [14,latest]
//   Add (opset 14): input 0 'x' has type float16; T supports float, double, int32, int64
// Source: ONNX operator schemas (since_version, type constraints), onnx/defs/*.
#pragma once

#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/data_type.h"
#include "nxrt/execution_provider.h"
#include "nxrt/kernel.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"

namespace nxrt::ep {

// `until_version` of a kernel that covers every later opset too.
inline constexpr int kLatestOpset = std::numeric_limits<int>::max();

// One type variable of an operator schema ("T", "T1", "Tind") and the dtypes a kernel accepts
// for it. A slot whose dtype the model leaves unknown is not checked here (the kernel's Prepare
// sees the real one).
struct TypeConstraint {
  std::string name;
  std::vector<int> inputs;        // input slots bound to the variable
  std::vector<int> outputs;       // output slots bound to it
  std::vector<DataType> allowed;  // non-empty
  // When >= 0, every input slot at or after this index is bound too (Concat, Sum, Max).
  int variadic_inputs_from = -1;
};

using KernelFactory = std::function<Result<std::unique_ptr<Kernel>>(const NodeInfo&)>;
// An extra support test run after the dtypes matched, for attribute values or shapes a kernel
// does not handle; returns KernelMatch::Unsupported with the reason, or Supported.
using KernelCheck = std::function<KernelMatch(const NodeInfo&)>;

struct KernelDef {
  std::string domain;  // "" for the default ONNX domain
  std::string op_type;
  int since_version = 1;             // first opset this kernel implements (>= 1)
  int until_version = kLatestOpset;  // last opset it implements, inclusive
  std::vector<TypeConstraint> types;
  KernelFactory factory;
  KernelCheck check;  // optional

  // "Add [14,latest]", "com.microsoft:FusedConv [1,1]".
  std::string Description() const;
};

class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;
  OpRegistry(OpRegistry&&) = default;
  OpRegistry& operator=(OpRegistry&&) = default;

  // Adds `def`. Errors (kInvalidArgument, naming the entry): empty op_type, since_version < 1,
  // until_version < since_version, no factory, a constraint with no allowed dtype, or an
  // ambiguous overlap: another entry for the same op whose range intersects this one and whose
  // constraints could both accept one node (no shared type variable with disjoint dtypes).
  Status Register(KernelDef def);

  // The entry for `node` (see the file comment). Errors: kUnsupported with the reason.
  Result<const KernelDef*> Find(const NodeInfo& node) const;
  // Find as a KernelMatch: Supported(0) or Unsupported(the reason).
  KernelMatch Supports(const NodeInfo& node) const;
  // Find, then the entry's factory. Errors: Find's, then the factory's, each prefixed with the
  // node's description. When an input a constraint binds has no known dtype in `node` (a model
  // loaded without type inference), the kernel made checks the inputs' dtypes against the
  // entry's constraints at each Prepare first (kInvalidArgument, naming the node and slots).
  Result<std::unique_ptr<Kernel>> CreateKernel(const NodeInfo& node) const;

  // Number of entries.
  size_t size() const { return size_; }
  // All entries, ordered by domain, op_type, since_version, registration order.
  std::vector<const KernelDef*> Entries() const;

 private:
  // A deque keeps entries in place, so pointers from Find stay valid across later Register calls.
  using OpMap = std::map<std::string, std::deque<KernelDef>, std::less<>>;
  std::map<std::string, OpMap, std::less<>> defs_;  // domain → op_type → entries
  size_t size_ = 0;
};

}  // namespace nxrt::ep
