// ep/op_registry.cpp: kernel registration and lookup with refusal reasons (ep/op_registry.h).
//
// Layer: nxrt_ep.
#include "ep/op_registry.h"

#include <algorithm>
#include <optional>

namespace nxrt::ep {
namespace {

std::string RangeText(int since, int until) {
  std::string out = "[";
  out += std::to_string(since);
  out += ',';
  out += until == kLatestOpset ? std::string("latest") : std::to_string(until);
  out += ']';
  return out;
}

std::string OpText(std::string_view domain, std::string_view op_type) {
  std::string out(domain);
  if (!out.empty()) out += ':';
  out += op_type.empty() ? std::string_view("<no op_type>") : op_type;
  return out;
}

std::string TypeList(const std::vector<DataType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    out += DataTypeName(types[i]);
  }
  return out;
}

// Why `node`'s dtypes do not fit one type constraint.
struct TypeMismatch {
  std::string constraint;  // the variable's name
  std::string detail;      // "input 0 'x' has type float16" or a disagreement between slots
  bool disagreement = false;
};

std::string SlotText(bool is_input, int index, const ValueInfo& value) {
  return std::string(is_input ? "input " : "output ") + std::to_string(index) + " '" + value.name +
         "'";
}

// The first of `constraints` that the slots' dtypes violate, or nullopt when all hold.
// `slot(is_input, index, &dtype, &text)` gives a slot's dtype (kUndefined when absent or not
// known: skipped) and its name in messages; `input_count` bounds the variadic inputs.
template <typename Slot>
std::optional<TypeMismatch> CheckSlotTypes(const std::vector<TypeConstraint>& constraints,
                                           int input_count, const Slot& slot) {
  for (const TypeConstraint& c : constraints) {
    std::vector<std::pair<bool, int>> slots;  // (is_input, index)
    for (int i : c.inputs) slots.emplace_back(true, i);
    if (c.variadic_inputs_from >= 0) {
      for (int i = c.variadic_inputs_from; i < input_count; ++i) {
        if (std::find(c.inputs.begin(), c.inputs.end(), i) == c.inputs.end()) {
          slots.emplace_back(true, i);
        }
      }
    }
    for (int i : c.outputs) slots.emplace_back(false, i);

    DataType bound = DataType::kUndefined;
    std::string bound_slot;
    for (auto [is_input, index] : slots) {
      DataType dtype = DataType::kUndefined;
      std::string text;
      slot(is_input, index, &dtype, &text);
      if (dtype == DataType::kUndefined) continue;
      if (std::find(c.allowed.begin(), c.allowed.end(), dtype) == c.allowed.end()) {
        return TypeMismatch{c.name, text + " has type " + std::string(DataTypeName(dtype)),
                            false};
      }
      if (bound != DataType::kUndefined && dtype != bound) {
        return TypeMismatch{c.name,
                            bound_slot + " has type " + std::string(DataTypeName(bound)) + " but " +
                                text + " has type " + std::string(DataTypeName(dtype)) +
                                "; both are type " + c.name + " and must agree",
                            true};
      }
      bound = dtype;
      bound_slot = text;
    }
  }
  return std::nullopt;
}

// CheckSlotTypes over the dtypes the model gives `node`.
std::optional<TypeMismatch> CheckTypes(const KernelDef& def, const NodeInfo& node) {
  return CheckSlotTypes(
      def.types, static_cast<int>(node.inputs().size()),
      [&](bool is_input, int index, DataType* dtype, std::string* text) {
        const std::vector<ValueInfo>& values = is_input ? node.inputs() : node.outputs();
        if (index < 0 || index >= static_cast<int>(values.size())) return;
        const ValueInfo& value = values[index];
        if (!value.present()) return;
        *dtype = value.dtype;
        *text = SlotText(is_input, index, value);
      });
}

// A kernel whose node had an input of unknown type when its entry was found (a model loaded
// without type inference, at optimization level 0): Prepare first checks the dtypes the inputs
// have at run time against the entry's constraints, which Find could not, so that a kernel never
// reads one dtype's buffer as another's (a Gemm of double by float). Errors: kInvalidArgument
// naming the node, the slots and their dtypes.
class RuntimeTypeCheck final : public Kernel {
 public:
  RuntimeTypeCheck(std::unique_ptr<Kernel> kernel, const KernelDef& def, const NodeInfo& node)
      : kernel_(std::move(kernel)), types_(def.types), node_(node.Description()) {}

  std::vector<int> ValueInputs() const override { return kernel_->ValueInputs(); }

  Status Prepare(PrepareContext& ctx) override {
    const auto slot = [&](bool is_input, int index, DataType* dtype, std::string* text) {
      if (!is_input || index < 0 || index >= ctx.input_count() || !ctx.has_input(index)) return;
      *dtype = ctx.input_dtype(index);
      *text = "input " + std::to_string(index);
    };
    std::optional<TypeMismatch> mismatch = CheckSlotTypes(types_, ctx.input_count(), slot);
    if (mismatch) {
      return MakeStatus(StatusCode::kInvalidArgument, node_, ": ", mismatch->detail,
                        mismatch->disagreement ? "" : ", which " + mismatch->constraint +
                                                          " does not allow");
    }
    return kernel_->Prepare(ctx);
  }

  Status Compute(ComputeContext& ctx) override { return kernel_->Compute(ctx); }

 private:
  std::unique_ptr<Kernel> kernel_;
  std::vector<TypeConstraint> types_;  // the entry's constraints
  std::string node_;
};

// Whether an input a constraint of `def` binds has no known dtype in `node`.
bool HasUntypedBoundInput(const KernelDef& def, const NodeInfo& node) {
  const std::vector<ValueInfo>& inputs = node.inputs();
  for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
    if (!inputs[i].present() || inputs[i].dtype != DataType::kUndefined) continue;
    for (const TypeConstraint& c : def.types) {
      if (std::find(c.inputs.begin(), c.inputs.end(), i) != c.inputs.end() ||
          (c.variadic_inputs_from >= 0 && i >= c.variadic_inputs_from)) {
        return true;
      }
    }
  }
  return false;
}

bool Disjoint(const KernelDef& a, const KernelDef& b) {
  for (const TypeConstraint& ca : a.types) {
    for (const TypeConstraint& cb : b.types) {
      if (ca.name != cb.name) continue;
      bool shared = std::any_of(ca.allowed.begin(), ca.allowed.end(), [&](DataType t) {
        return std::find(cb.allowed.begin(), cb.allowed.end(), t) != cb.allowed.end();
      });
      if (!shared) return true;
    }
  }
  return false;
}

Status BadDef(const KernelDef& def, std::string_view problem) {
  return MakeStatus(StatusCode::kInvalidArgument, "kernel entry ", def.Description(), ": ",
                    problem);
}

}  // namespace

std::string KernelDef::Description() const {
  return OpText(domain, op_type) + " " + RangeText(since_version, until_version);
}

Status OpRegistry::Register(KernelDef def) {
  if (def.op_type.empty()) return BadDef(def, "op_type is empty");
  if (def.since_version < 1) {
    return BadDef(def, "since_version " + std::to_string(def.since_version) + " is below 1");
  }
  if (def.until_version < def.since_version) {
    return BadDef(def, "until_version " + std::to_string(def.until_version) +
                           " is below since_version " + std::to_string(def.since_version));
  }
  if (!def.factory) return BadDef(def, "no kernel factory");
  for (const TypeConstraint& c : def.types) {
    if (c.allowed.empty()) return BadDef(def, "type constraint '" + c.name + "' allows no dtype");
  }
  std::deque<KernelDef>& entries = defs_[def.domain][def.op_type];
  for (const KernelDef& other : entries) {
    bool overlap = std::max(other.since_version, def.since_version) <=
                   std::min(other.until_version, def.until_version);
    if (overlap && !Disjoint(other, def)) {
      return BadDef(def, "overlaps " + other.Description() +
                             " for the same dtypes; make the opset ranges disjoint or give a "
                             "shared type variable disjoint dtypes");
    }
  }
  entries.push_back(std::move(def));
  ++size_;
  return Status::Ok();
}

Result<const KernelDef*> OpRegistry::Find(const NodeInfo& node) const {
  const std::string op = OpText(node.domain(), node.op_type());
  auto domain_it = defs_.find(node.domain());
  const std::deque<KernelDef>* entries = nullptr;
  if (domain_it != defs_.end()) {
    auto op_it = domain_it->second.find(node.op_type());
    if (op_it != domain_it->second.end()) entries = &op_it->second;
  }
  if (entries == nullptr) {
    if (node.domain().empty()) {
      return MakeStatus(StatusCode::kUnsupported, "no kernel for op '", node.op_type(), "'");
    }
    return MakeStatus(StatusCode::kUnsupported, "no kernel for op '", node.op_type(), "' (domain '",
                      node.domain(), "')");
  }

  std::vector<const KernelDef*> candidates;
  for (const KernelDef& def : *entries) {
    if (def.since_version <= node.opset() && node.opset() <= def.until_version) {
      candidates.push_back(&def);
    }
  }
  if (candidates.empty()) {
    std::vector<const KernelDef*> all;
    for (const KernelDef& def : *entries) all.push_back(&def);
    std::stable_sort(all.begin(), all.end(), [](const KernelDef* a, const KernelDef* b) {
      return a->since_version < b->since_version;
    });
    std::string ranges;
    for (const KernelDef* def : all) {
      std::string r = RangeText(def->since_version, def->until_version);
      if (ranges.find(r) != std::string::npos) continue;
      if (!ranges.empty()) ranges += ", ";
      ranges += r;
    }
    return MakeStatus(StatusCode::kUnsupported, "no kernel for ", op, " at opset ", node.opset(),
                      "; kernels cover opsets ", ranges,
                      " (convert the model to a covered opset, e.g. with "
                      "onnx.version_converter)");
  }
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const KernelDef* a, const KernelDef* b) { return a->since_version > b->since_version; });

  std::optional<TypeMismatch> first_mismatch;
  std::optional<std::string> first_check_refusal;
  for (const KernelDef* def : candidates) {
    std::optional<TypeMismatch> mismatch = CheckTypes(*def, node);
    if (mismatch) {
      if (!first_mismatch) first_mismatch = std::move(mismatch);
      continue;
    }
    if (def->check) {
      KernelMatch match = def->check(node);
      if (!match.supported()) {
        if (!first_check_refusal) first_check_refusal = match.reason();
        continue;
      }
    }
    return def;
  }
  const std::string prefix = op + " (opset " + std::to_string(node.opset()) + "): ";
  if (first_check_refusal) {
    return MakeStatus(StatusCode::kUnsupported, prefix, *first_check_refusal);
  }
  if (first_mismatch->disagreement) {
    return MakeStatus(StatusCode::kUnsupported, prefix, first_mismatch->detail);
  }
  // The dtypes every candidate allows for the violated variable, in first-seen order.
  std::vector<DataType> allowed;
  for (const KernelDef* def : candidates) {
    for (const TypeConstraint& c : def->types) {
      if (c.name != first_mismatch->constraint) continue;
      for (DataType t : c.allowed) {
        if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) allowed.push_back(t);
      }
    }
  }
  return MakeStatus(StatusCode::kUnsupported, prefix, first_mismatch->detail, "; ",
                    first_mismatch->constraint, " supports ", TypeList(allowed));
}

KernelMatch OpRegistry::Supports(const NodeInfo& node) const {
  Result<const KernelDef*> def = Find(node);
  if (!def.ok()) return KernelMatch::Unsupported(def.status().message());
  return KernelMatch::Supported();
}

Result<std::unique_ptr<Kernel>> OpRegistry::CreateKernel(const NodeInfo& node) const {
  Result<const KernelDef*> def = Find(node);
  if (!def.ok()) return def.status().WithContext(node.Description());
  Result<std::unique_ptr<Kernel>> kernel = (*def)->factory(node);
  // Factories usually build their messages with NodeInfo::Error; WithContext does not repeat it.
  if (!kernel.ok()) return kernel.status().WithContext(node.Description());
  if (*kernel == nullptr) {
    return node.Error(StatusCode::kInternal, "the factory of ", (*def)->Description(),
                      " returned no kernel");
  }
  if (HasUntypedBoundInput(**def, node)) {
    return std::unique_ptr<Kernel>(
        std::make_unique<RuntimeTypeCheck>(std::move(kernel).value(), **def, node));
  }
  return kernel;
}

std::vector<const KernelDef*> OpRegistry::Entries() const {
  std::vector<const KernelDef*> out;
  out.reserve(size_);
  for (const auto& [domain, ops] : defs_) {
    for (const auto& [op, entries] : ops) {
      std::vector<const KernelDef*> sorted;
      for (const KernelDef& def : entries) sorted.push_back(&def);
      std::stable_sort(sorted.begin(), sorted.end(), [](const KernelDef* a, const KernelDef* b) {
        return a->since_version < b->since_version;
      });
      out.insert(out.end(), sorted.begin(), sorted.end());
    }
  }
  return out;
}

}  // namespace nxrt::ep
