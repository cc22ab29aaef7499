// ep/cpu/kernels/signal/signal.cpp: glue of the window generators, MelWeightMatrix, DFT and STFT
// over math/signal/signal.h.
//
// Layer: nxrt_ep_cpu (kernel glue). Input slots (ONNX onnx/defs/math/defs.cc, opset 17):
//   HannWindow/HammingWindow/BlackmanWindow  size (int32/int64 scalar)
//   MelWeightMatrix  num_mel_bins, dft_length, sample_rate (ints), lower/upper_edge_hertz (floats)
//   DFT              input, dft_length?, axis? (opset 20)
//   STFT             signal, frame_step, window?, frame_length?
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/kernels/signal/signal.h"
#include "ep/cpu/math/element_types.h"

namespace nxrt::cpu::kernels {
namespace {


// Value input `i` as one int64 (a scalar or a one-element tensor).
Result<int64_t> ReadScalarInt(const PrepareContext& ctx, int i, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadInt64s(ctx, i, what));
  if (values.size() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " has ", values.size(),
                      " elements, expected a scalar");
  }
  return values[0];
}

// Value input `i` as one double; float, double, float16 or bfloat16.
Result<double> ReadScalarFloat(const PrepareContext& ctx, int i, std::string_view what) {
  NXRT_ASSIGN_OR_RETURN(const Tensor* t, ctx.input_value(i));
  if (t->element_count() != 1) {
    return MakeStatus(StatusCode::kInvalidArgument, what, " has ", t->element_count(),
                      " elements, expected a scalar");
  }
  double value = 0;
  NXRT_RETURN_IF_ERROR(math::DispatchType<math::FloatTypesBf16>(t->dtype(), what, [&](auto tag) {
    value = static_cast<double>(math::Load(*t->data<typename decltype(tag)::type>()));
  }));
  return value;
}

Result<DataType> OutputDatatype(const NodeInfo& node) {
  NXRT_ASSIGN_OR_RETURN(int64_t onnx_type, node.GetInt("output_datatype", 1));
  std::optional<DataType> dtype = DataTypeFromOnnx(static_cast<int32_t>(onnx_type));
  if (!dtype) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'output_datatype' is ", onnx_type,
                      ", which names no ONNX element type");
  }
  return *dtype;
}

class WindowKernel final : public Kernel {
 public:
  WindowKernel(math::WindowKind kind, bool periodic, DataType dtype)
      : kind_(kind), periodic_(periodic), dtype_(dtype) {}

  std::vector<int> ValueInputs() const override { return {0}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(size_, ReadScalarInt(ctx, 0, "input 0 'size'"));
    if (size_ < 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "input 0 'size' is ", size_,
                        "; a window needs a size >= 0");
    }
    return ctx.SetOutput(0, dtype_, {size_});
  }

  Status Compute(ComputeContext& ctx) override {
    return math::GenerateWindow(kind_, size_, periodic_, dtype_, ctx.output(0)->mutable_raw_data());
  }

 private:
  math::WindowKind kind_;
  bool periodic_;
  DataType dtype_;
  int64_t size_ = 0;
};

class MelWeightMatrixKernel final : public Kernel {
 public:
  explicit MelWeightMatrixKernel(DataType dtype) : dtype_(dtype) {}

  std::vector<int> ValueInputs() const override { return {0, 1, 2, 3, 4}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(params_.num_mel_bins, ReadScalarInt(ctx, 0, "input 0 'num_mel_bins'"));
    NXRT_ASSIGN_OR_RETURN(params_.dft_length, ReadScalarInt(ctx, 1, "input 1 'dft_length'"));
    NXRT_ASSIGN_OR_RETURN(params_.sample_rate, ReadScalarInt(ctx, 2, "input 2 'sample_rate'"));
    NXRT_ASSIGN_OR_RETURN(params_.lower_edge_hertz,
                          ReadScalarFloat(ctx, 3, "input 3 'lower_edge_hertz'"));
    NXRT_ASSIGN_OR_RETURN(params_.upper_edge_hertz,
                          ReadScalarFloat(ctx, 4, "input 4 'upper_edge_hertz'"));
    if (params_.num_mel_bins < 1 || params_.dft_length < 1) {
      return MakeStatus(StatusCode::kInvalidArgument, "num_mel_bins ", params_.num_mel_bins,
                        " and dft_length ", params_.dft_length, " must be positive");
    }
    return ctx.SetOutput(0, dtype_, {params_.dft_length / 2 + 1, params_.num_mel_bins});
  }

  Status Compute(ComputeContext& ctx) override {
    return math::GenerateMelWeightMatrix(params_, dtype_, ctx.output(0)->mutable_raw_data());
  }

 private:
  DataType dtype_;
  math::MelParameters params_;
};

class DftKernel final : public Kernel {
 public:
  DftKernel(std::optional<int64_t> axis_attribute, bool inverse, bool onesided)
      : axis_attribute_(axis_attribute), inverse_(inverse), onesided_(onesided) {}

  std::vector<int> ValueInputs() const override { return {1, 2}; }

  Status Prepare(PrepareContext& ctx) override {
    int64_t length = 0;
    if (HasInput(ctx, 1)) {
      NXRT_ASSIGN_OR_RETURN(length, ReadScalarInt(ctx, 1, "input 1 'dft_length'"));
      if (length < 1) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 1 'dft_length' is ", length,
                          "; give a positive length or omit the input");
      }
    }
    // Opset 17 has the `axis` attribute (default 1); opset 20 the `axis` input (default -2).
    int64_t axis = axis_attribute_.value_or(-2);
    if (!axis_attribute_ && HasInput(ctx, 2)) {
      NXRT_ASSIGN_OR_RETURN(axis, ReadScalarInt(ctx, 2, "input 2 'axis'"));
    }
    Shape y_shape;
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareDft(ctx.input_dtype(0), InputShape(ctx, 0), axis,
                                                  length, inverse_, onesided_, y_shape));
    return ctx.SetOutput(0, ctx.input_dtype(0), std::move(y_shape));
  }

  Status Compute(ComputeContext& ctx) override {
    math::Dft(plan_, ctx.input(0)->raw_data(), ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  std::optional<int64_t> axis_attribute_;
  bool inverse_;
  bool onesided_;
  math::DftPlan plan_;
};

class StftKernel final : public Kernel {
 public:
  explicit StftKernel(bool onesided) : onesided_(onesided) {}

  std::vector<int> ValueInputs() const override { return {1, 3}; }

  Status Prepare(PrepareContext& ctx) override {
    NXRT_ASSIGN_OR_RETURN(int64_t step, ReadScalarInt(ctx, 1, "input 1 'frame_step'"));
    std::optional<int64_t> frame_length;
    if (HasInput(ctx, 3)) {
      NXRT_ASSIGN_OR_RETURN(frame_length, ReadScalarInt(ctx, 3, "input 3 'frame_length'"));
    }
    has_window_ = HasInput(ctx, 2);
    if (has_window_) {
      const Shape window = InputShape(ctx, 2);
      if (window.size() != 1 || (frame_length && *frame_length != window[0])) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 2 'window' has shape ",
                          ShapeToString(window), "; expected [frame_length]",
                          frame_length ? " = [" + std::to_string(*frame_length) + "]" : "");
      }
      if (ctx.input_dtype(2) != ctx.input_dtype(0)) {
        return MakeStatus(StatusCode::kInvalidArgument, "input 2 'window' is ",
                          DataTypeName(ctx.input_dtype(2)), " but the signal is ",
                          DataTypeName(ctx.input_dtype(0)), "; give both the same type");
      }
      frame_length = window[0];
    }
    if (!frame_length) {
      return MakeStatus(StatusCode::kInvalidArgument,
                        "neither input 2 'window' nor input 3 'frame_length' is given; STFT "
                        "needs one of them for the frame length");
    }
    Shape y_shape;
    NXRT_ASSIGN_OR_RETURN(plan_, math::PrepareStft(ctx.input_dtype(0), InputShape(ctx, 0), step,
                                                   *frame_length, onesided_, y_shape));
    return ctx.SetOutput(0, ctx.input_dtype(0), std::move(y_shape));
  }

  Status Compute(ComputeContext& ctx) override {
    math::Stft(plan_, ctx.input(0)->raw_data(), has_window_ ? ctx.input(2)->raw_data() : nullptr,
               ctx.output(0)->mutable_raw_data());
    return Status::Ok();
  }

 private:
  bool onesided_;
  bool has_window_ = false;
  math::StftPlan plan_;
};

}  // namespace

ep::KernelFactory WindowFactory(math::WindowKind kind) {
  return [kind](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t periodic, node.GetInt("periodic", 1));
    NXRT_ASSIGN_OR_RETURN(DataType dtype, OutputDatatype(node));
    return std::unique_ptr<Kernel>(std::make_unique<WindowKernel>(kind, periodic != 0, dtype));
  };
}

ep::KernelFactory MelWeightMatrixFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(DataType dtype, OutputDatatype(node));
    return std::unique_ptr<Kernel>(std::make_unique<MelWeightMatrixKernel>(dtype));
  };
}

ep::KernelFactory DftFactory(bool axis_input) {
  return [axis_input](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    std::optional<int64_t> axis;
    if (!axis_input) {
      NXRT_ASSIGN_OR_RETURN(axis, node.GetInt("axis", 1));
    }
    NXRT_ASSIGN_OR_RETURN(int64_t inverse, node.GetInt("inverse", 0));
    NXRT_ASSIGN_OR_RETURN(int64_t onesided, node.GetInt("onesided", 0));
    return std::unique_ptr<Kernel>(
        std::make_unique<DftKernel>(axis, inverse != 0, onesided != 0));
  };
}

ep::KernelFactory StftFactory() {
  return [](const NodeInfo& node) -> Result<std::unique_ptr<Kernel>> {
    NXRT_ASSIGN_OR_RETURN(int64_t onesided, node.GetInt("onesided", 1));
    return std::unique_ptr<Kernel>(std::make_unique<StftKernel>(onesided != 0));
  };
}

}  // namespace nxrt::cpu::kernels
