// ep/cpu/kernels/string/string_normalizer.cpp: glue of StringNormalizer over math/string/text.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The input is [C] or [1, C] strings; how many survive the
// stopwords is known only while computing, so the output is dynamic: [C'] or [1, C'], and when
// every string is a stopword, [1] or [1, 1] holding one empty string (the ONNX spec's rule).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/string/string.h"
#include "ep/cpu/math/string/text.h"

namespace nxrt::cpu::kernels {
namespace {

class StringNormalizerKernel final : public Kernel {
 public:
  explicit StringNormalizerKernel(math::StringNormalizerPlan plan) : plan_(std::move(plan)) {}

  Status Prepare(PrepareContext& ctx) override {
    const auto shape = ctx.input_shape(0);
    const bool ok = shape.size() == 1 || (shape.size() == 2 && shape[0] == 1);
    if (!ok) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'X' has shape ",
                        ShapeToString(shape), ", expected [C] or [1, C]");
    }
    two_dims_ = shape.size() == 2;
    return ctx.SetOutputDynamic(0, DataType::kString);
  }

  Status Compute(ComputeContext& ctx) override {
    std::vector<std::string> kept =
        math::NormalizeStrings(plan_, ctx.input(0)->span<std::string>());
    if (kept.empty()) kept.emplace_back();
    const int64_t count = static_cast<int64_t>(kept.size());
    NXRT_ASSIGN_OR_RETURN(Tensor* out,
                          ctx.AllocateOutput(0, two_dims_ ? Shape{1, count} : Shape{count}));
    std::move(kept.begin(), kept.end(), out->mutable_data<std::string>());
    return Status::Ok();
  }

 private:
  math::StringNormalizerPlan plan_;
  bool two_dims_ = false;
};

}  // namespace

ep::KernelFactory StringNormalizerFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const std::string action,
                          node.GetString("case_change_action", "NONE"));
    Result<math::CaseChange> change = math::ParseCaseChange(action);
    if (!change.ok()) return node.Error(StatusCode::kInvalidModel, change.status().message());
    NXRT_ASSIGN_OR_RETURN(const int64_t sensitive, node.GetInt("is_case_sensitive", 0));
    std::vector<std::string> stopwords;
    if (node.HasAttribute("stopwords")) {
      NXRT_ASSIGN_OR_RETURN(stopwords, node.GetStrings("stopwords"));
    }
    return std::unique_ptr<Kernel>(std::make_unique<StringNormalizerKernel>(
        math::MakeStringNormalizer(*change, sensitive != 0, std::move(stopwords))));
  };
}

}  // namespace nxrt::cpu::kernels
