// ep/cpu/kernels/string/tfidf_vectorizer.cpp: glue of TfIdfVectorizer over math/string/text.h.
//
// Layer: nxrt_ep_cpu (kernel glue). The factory builds the n-gram table from the pool attribute
// (pool_int64s for int32/int64 inputs, pool_strings for string inputs); Prepare checks the input
// against it. Input [C] gives a float [max(ngram_indexes) + 1] output, [N, C] gives N such rows.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/string/string.h"
#include "ep/cpu/math/string/text.h"

namespace nxrt::cpu::kernels {
namespace {

class TfIdfKernel final : public Kernel {
 public:
  // Exactly one of the plans is used: `strings` says which.
  TfIdfKernel(bool strings, math::TfIdfPlan<int64_t> int_plan,
              math::TfIdfPlan<std::string> string_plan)
      : strings_(strings), int_plan_(std::move(int_plan)), string_plan_(std::move(string_plan)) {}

  Status Prepare(PrepareContext& ctx) override {
    const DataType dtype = ctx.input_dtype(0);
    if ((dtype == DataType::kString) != strings_) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'X' is ", DataTypeName(dtype),
                        " but the node's pool is ", strings_ ? "pool_strings" : "pool_int64s",
                        "; use pool_strings for string inputs, pool_int64s for integers");
    }
    const auto shape = ctx.input_shape(0);
    if (shape.size() != 1 && shape.size() != 2) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'X' has shape ",
                        ShapeToString(shape), ", expected [C] or [N, C]");
    }
    rows_ = shape.size() == 2 ? shape[0] : 1;
    row_length_ = shape.back();
    const int64_t size = strings_ ? string_plan_.output_size : int_plan_.output_size;
    return ctx.SetOutput(0, DataType::kFloat,
                         shape.size() == 2 ? Shape{rows_, size} : Shape{size});
  }

  Status Compute(ComputeContext& ctx) override {
    const Tensor& x = *ctx.input(0);
    float* out = ctx.output(0)->mutable_data<float>();
    const size_t length = static_cast<size_t>(row_length_);
    if (strings_) {
      for (int64_t r = 0; r < rows_; ++r) {
        math::TfIdfRow(string_plan_, x.span<std::string>().subspan(r * length, length),
                       out + r * string_plan_.output_size);
      }
      return Status::Ok();
    }
    std::vector<int64_t> row(length);
    for (int64_t r = 0; r < rows_; ++r) {
      for (size_t i = 0; i < length; ++i) {
        const size_t at = r * length + i;
        row[i] = x.dtype() == DataType::kInt32 ? x.data<int32_t>()[at] : x.data<int64_t>()[at];
      }
      math::TfIdfRow(int_plan_, std::span<const int64_t>(row), out + r * int_plan_.output_size);
    }
    return Status::Ok();
  }

 private:
  bool strings_;
  math::TfIdfPlan<int64_t> int_plan_;
  math::TfIdfPlan<std::string> string_plan_;
  int64_t rows_ = 0;
  int64_t row_length_ = 0;
};

}  // namespace

ep::KernelFactory TfIdfVectorizerFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(const std::string mode_text, node.GetString("mode"));
    Result<math::TfIdfMode> mode = math::ParseTfIdfMode(mode_text);
    if (!mode.ok()) return node.Error(StatusCode::kInvalidModel, mode.status().message());
    NXRT_ASSIGN_OR_RETURN(const int64_t min_gram, node.GetInt("min_gram_length"));
    NXRT_ASSIGN_OR_RETURN(const int64_t max_gram, node.GetInt("max_gram_length"));
    NXRT_ASSIGN_OR_RETURN(const int64_t max_skip, node.GetInt("max_skip_count"));
    NXRT_ASSIGN_OR_RETURN(const std::vector<int64_t> counts, node.GetInts("ngram_counts"));
    NXRT_ASSIGN_OR_RETURN(const std::vector<int64_t> indexes, node.GetInts("ngram_indexes"));
    NXRT_ASSIGN_OR_RETURN(std::vector<float> weights,
                          node.GetFloats("weights", std::vector<float>{}));
    const bool strings = node.HasAttribute("pool_strings");
    if (strings == node.HasAttribute("pool_int64s")) {
      return node.Error(StatusCode::kInvalidModel,
                        "exactly one of the attributes pool_strings and pool_int64s must be set");
    }
    math::TfIdfPlan<int64_t> int_plan;
    math::TfIdfPlan<std::string> string_plan;
    Status made;
    if (strings) {
      NXRT_ASSIGN_OR_RETURN(const std::vector<std::string> pool, node.GetStrings("pool_strings"));
      Result<math::TfIdfPlan<std::string>> plan =
          math::MakeTfIdf<std::string>(*mode, min_gram, max_gram, max_skip, counts, indexes,
                                       pool, std::move(weights));
      if (plan.ok()) string_plan = std::move(*plan);
      made = plan.status();
    } else {
      NXRT_ASSIGN_OR_RETURN(const std::vector<int64_t> pool, node.GetInts("pool_int64s"));
      Result<math::TfIdfPlan<int64_t>> plan = math::MakeTfIdf<int64_t>(
          *mode, min_gram, max_gram, max_skip, counts, indexes, pool, std::move(weights));
      if (plan.ok()) int_plan = std::move(*plan);
      made = plan.status();
    }
    if (!made.ok()) return node.Error(StatusCode::kInvalidModel, made.message());
    return std::unique_ptr<Kernel>(std::make_unique<TfIdfKernel>(
        strings, std::move(int_plan), std::move(string_plan)));
  };
}

}  // namespace nxrt::cpu::kernels
