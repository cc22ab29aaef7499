// ep/cpu/kernels/shape/constant.cpp: glue of Constant and ConstantOfShape.
//
// Layer: nxrt_ep_cpu (kernel glue). Constant turns its one value attribute into a tensor at
// creation and copies it out; ConstantOfShape reads its shape as a value input and fills the
// output with its one-element `value`.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/shape/shape.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {

class ConstantKernel final : public Kernel {
 public:
  explicit ConstantKernel(Tensor value) : value_(std::move(value)) {}

  Status Prepare(PrepareContext& ctx) override {
    return ctx.SetOutput(0, value_.dtype(), value_.shape());
  }

  Status Compute(ComputeContext& ctx) override {
    CopyElements(value_.dtype(), value_.raw_data(), ctx.output(0)->mutable_raw_data(),
                 value_.element_count());
    return Status::Ok();
  }

 private:
  Tensor value_;
};

class ConstantOfShapeKernel final : public Kernel {
 public:
  explicit ConstantOfShapeKernel(Tensor value) : value_(std::move(value)) {}

  std::vector<int> ValueInputs() const override { return {0}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(Shape shape, ReadInt64s(ctx, 0, "input 0 'input'"));
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 0 'input' ", ShapeToString(shape),
                          " has negative dim ", shape[i], " at ", i);
      }
    }
    return ctx.SetOutput(0, value_.dtype(), std::move(shape));
  }

  Status Compute(ComputeContext& ctx) override {
    Tensor* out = ctx.output(0);
    return math::DispatchType<math::NumericAndBoolTypes>(
        value_.dtype(), "ConstantOfShape", [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* data = out->mutable_data<T>();
          const T value = *value_.data<T>();
          ParallelRanges(ctx, out->element_count(), [&](int64_t begin, int64_t end) {
            std::fill(data + begin, data + end, value);
          });
        });
  }

 private:
  Tensor value_;
};

// A 1-D tensor of `values`.
template <typename T>
Result<Tensor> VectorTensor(const std::vector<T>& values) {
  return Tensor::FromVector<T>({static_cast<int64_t>(values.size())}, values);
}

// The tensor of Constant's one value attribute.
Result<Tensor> ConstantValue(const NodeInfo& node) {
  const AttributeValue* found = nullptr;
  for (const AttributeValue& attribute : node.attributes()) {
    if (attribute.name.rfind("value", 0) != 0 && attribute.name != "sparse_value") continue;
    if (found != nullptr) {
      return node.Error(StatusCode::kInvalidModel, "has attributes '", found->name, "' and '",
                        attribute.name, "'; a Constant takes exactly one value attribute");
    }
    found = &attribute;
  }
  if (found == nullptr) {
    return node.Error(StatusCode::kInvalidModel, "has no value attribute (value, sparse_value, ",
                      "value_float(s), value_int(s) or value_string(s))");
  }
  const std::string& name = found->name;
  if (name == "value" || name == "sparse_value") return node.GetTensor(name);
  if (name == "value_float") {
    NXRT_ASSIGN_OR_RETURN(float value, node.GetFloat(name));
    return Tensor::Scalar(value);
  }
  if (name == "value_int") {
    NXRT_ASSIGN_OR_RETURN(int64_t value, node.GetInt(name));
    return Tensor::Scalar(value);
  }
  if (name == "value_string") {
    NXRT_ASSIGN_OR_RETURN(std::string value, node.GetString(name));
    return Tensor::Scalar(std::move(value));
  }
  if (name == "value_floats") {
    NXRT_ASSIGN_OR_RETURN(std::vector<float> values, node.GetFloats(name));
    return VectorTensor(values);
  }
  if (name == "value_ints") {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.GetInts(name));
    return VectorTensor(values);
  }
  if (name == "value_strings") {
    NXRT_ASSIGN_OR_RETURN(std::vector<std::string> values, node.GetStrings(name));
    return VectorTensor(values);
  }
  return node.Error(StatusCode::kInvalidModel, "attribute '", name,
                    "' is not a value attribute of Constant");
}

}  // namespace

ep::KernelFactory ConstantFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(Tensor value, ConstantValue(node));
    return std::unique_ptr<Kernel>(std::make_unique<ConstantKernel>(std::move(value)));
  };
}

ep::KernelFactory ConstantOfShapeFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    Tensor value = Tensor::Scalar<float>(0.0f);
    if (node.HasAttribute("value")) {
      NXRT_ASSIGN_OR_RETURN(value, node.GetTensor("value"));
    }
    const bool numeric =
        math::VisitType(math::NumericAndBoolTypes{}, value.dtype(), [](auto) {});
    if (value.element_count() != 1 || !numeric) {
      return node.Error(StatusCode::kInvalidModel, "attribute 'value' is ", value.Description(),
                        ", expected one numeric or bool element");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConstantOfShapeKernel>(std::move(value)));
  };
}

}  // namespace nxrt::cpu::kernels
