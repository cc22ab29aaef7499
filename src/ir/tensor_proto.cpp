// ir/tensor_proto.cpp: TensorProto / SparseTensorProto <-> Tensor (see tensor_proto.h).
//
// Layer: nxrt_ir. Protobuf accessors do not throw; the only exceptions possible here are
// allocation failures of strings, caught at the function boundaries.
#include "ir/tensor_proto.h"

#include <algorithm>
#include <bit>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

namespace nxrt::ir {
namespace {

// Bytes swapped as one unit when converting between host and little-endian order: the element
// size, except for complex numbers, which are two independent floats or doubles.
size_t SwapUnit(DataType dtype) {
  if (dtype == DataType::kComplex64) return 4;
  if (dtype == DataType::kComplex128) return 8;
  return DataTypeSize(dtype);
}

// Converts `bytes` bytes of little-endian elements at `data` to host order in place.
void LittleEndianToHost(void* data, size_t bytes, DataType dtype) {
  if constexpr (std::endian::native == std::endian::big) {
    const size_t unit = SwapUnit(dtype);
    auto* p = static_cast<std::byte*>(data);
    for (size_t i = 0; unit > 1 && i + unit <= bytes; i += unit) std::reverse(p + i, p + i + unit);
  }
}

// Copies `bytes` bytes of little-endian elements from `src` to host order at `dst`.
void CopyLittleEndian(void* dst, const void* src, size_t bytes, DataType dtype) {
  std::memcpy(dst, src, bytes);
  LittleEndianToHost(dst, bytes, dtype);
}

// Makes every byte of a bool buffer 0 or 1: any nonzero byte is true.
void CanonicalizeBools(void* data, size_t bytes) {
  auto* b = static_cast<uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) b[i] = b[i] != 0;
}

std::string TensorLabel(std::string_view name) {
  return name.empty() ? std::string("unnamed tensor") : "tensor '" + std::string(name) + "'";
}

// What a TensorProto's data must fill: dtype, shape and its element count.
struct TensorSpec {
  DataType dtype;
  const Shape& shape;
  int64_t count;
};

// A tensor of `spec` filled from a repeated field holding `kPerElement` entries per element: one
// entry converted with static_cast (int32_data narrows to 8/16 bits, nonzero is true for bool,
// float16/bfloat16 keep their 16 bits), or for complex types the real and imaginary parts, which
// the field lays out exactly like the std::complex array. CheckTensorProto has checked the
// field's size before anything is allocated.
template <typename Element, int kPerElement = 1, typename Field>
Result<Tensor> FromTypedField(const Field& field, std::string_view /*field_name*/,
                              const TensorSpec& spec) {
  NXRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(spec.dtype, spec.shape));
  Element* out = t.mutable_data<Element>();
  if constexpr (kPerElement == 1) {
    for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Element>(field.Get(i));
  } else {
    std::memcpy(static_cast<void*>(out), field.data(), t.byte_size());
  }
  return t;
}

// The typed field ONNX assigns to `dtype`: its name, its entry count in `proto`, and entries per
// element (2 for complex numbers).
struct TypedField {
  const char* name;
  int size;
  int per_element;
};

TypedField TypedFieldOf(const onnx::TensorProto& proto, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return {"float_data", proto.float_data_size(), 1};
    case DataType::kComplex64: return {"float_data", proto.float_data_size(), 2};
    case DataType::kDouble: return {"double_data", proto.double_data_size(), 1};
    case DataType::kComplex128: return {"double_data", proto.double_data_size(), 2};
    case DataType::kInt64: return {"int64_data", proto.int64_data_size(), 1};
    case DataType::kUint32:
    case DataType::kUint64: return {"uint64_data", proto.uint64_data_size(), 1};
    case DataType::kString: return {"string_data", proto.string_data_size(), 1};
    default: return {"int32_data", proto.int32_data_size(), 1};
  }
}

Result<Tensor> FromTypedFields(const onnx::TensorProto& proto, const TensorSpec& spec) {
  switch (spec.dtype) {
    case DataType::kFloat: return FromTypedField<float>(proto.float_data(), "float_data", spec);
    case DataType::kComplex64:
      return FromTypedField<std::complex<float>, 2>(proto.float_data(), "float_data", spec);
    case DataType::kDouble: return FromTypedField<double>(proto.double_data(), "double_data", spec);
    case DataType::kComplex128:
      return FromTypedField<std::complex<double>, 2>(proto.double_data(), "double_data", spec);
    case DataType::kInt32: return FromTypedField<int32_t>(proto.int32_data(), "int32_data", spec);
    case DataType::kInt16: return FromTypedField<int16_t>(proto.int32_data(), "int32_data", spec);
    case DataType::kInt8: return FromTypedField<int8_t>(proto.int32_data(), "int32_data", spec);
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      return FromTypedField<uint16_t>(proto.int32_data(), "int32_data", spec);
    case DataType::kUint8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kUint4:  // one packed byte per entry
    case DataType::kInt4: return FromTypedField<uint8_t>(proto.int32_data(), "int32_data", spec);
    case DataType::kBool: return FromTypedField<bool>(proto.int32_data(), "int32_data", spec);
    case DataType::kInt64: return FromTypedField<int64_t>(proto.int64_data(), "int64_data", spec);
    case DataType::kUint32:
      return FromTypedField<uint32_t>(proto.uint64_data(), "uint64_data", spec);
    case DataType::kUint64:
      return FromTypedField<uint64_t>(proto.uint64_data(), "uint64_data", spec);
    case DataType::kString:
      return FromTypedField<std::string>(proto.string_data(), "string_data", spec);
    case DataType::kUndefined: break;
  }
  return MakeStatus(StatusCode::kInternal, "no typed field for ", DataTypeName(spec.dtype));
}

// An owned tensor of `dtype` and `shape` filled from `raw`, whose size the caller has checked.
Result<Tensor> CopiedRawData(const std::string& raw, DataType dtype, Shape shape) {
  NXRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, std::move(shape)));
  CopyLittleEndian(t.mutable_raw_data(), raw.data(), raw.size(), dtype);
  if (dtype == DataType::kBool) CanonicalizeBools(t.mutable_raw_data(), raw.size());
  return t;
}

std::string ExternalDescription(const onnx::TensorProto& proto) {
  std::string out;
  for (const auto& entry : proto.external_data()) {
    if (!out.empty()) out += ", ";
    out += entry.key() + "='" + entry.value() + "'";
  }
  return out.empty() ? "no external_data entries" : out;
}

// The tensor `proto` holds. With `take` (then `proto` itself), raw_data is taken over rather than
// copied once every check has passed.
Status CheckTensorProtoDataImpl(const onnx::TensorProto& proto) {
  std::optional<DataType> dtype = DataTypeFromOnnx(proto.data_type());
  if (!dtype) {
    return MakeStatus(StatusCode::kInvalidModel, "data_type ", proto.data_type(),
                      proto.data_type() == 0 ? " (UNDEFINED)" : "",
                      " is not an element type nxrt knows (1..22)");
  }
  const Shape shape(proto.dims().begin(), proto.dims().end());
  Result<int64_t> count = ElementCount(shape);
  if (!count.ok()) return Status(StatusCode::kInvalidModel, count.status().message());
  if (proto.has_segment()) {
    return MakeStatus(StatusCode::kNotImplemented, "segmented tensors (segment ",
                      proto.segment().begin(), "..", proto.segment().end(), ") are not supported");
  }
  uint64_t needed = 0;
  const bool overflow =
      __builtin_mul_overflow(static_cast<uint64_t>(*count), DataTypeBits(*dtype), &needed);
  needed = (needed + 7) / 8;
  // int4/uint4 in int32_data are packed like raw_data: one entry per byte.
  const int64_t typed_count = IsPacked4Bit(*dtype) ? static_cast<int64_t>(needed) : *count;
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    if (overflow) {
      return MakeStatus(StatusCode::kInvalidModel, "dims ", ShapeToString(shape), " of ",
                        DataTypeName(*dtype), " need more than 2^64 bytes of external data");
    }
    return Status::Ok();  // the file's size is checked when it is read (ir/external_data.h)
  }
  if (!proto.has_raw_data()) {
    const TypedField field = TypedFieldOf(proto, *dtype);
    if (field.size % field.per_element != 0 || field.size / field.per_element != typed_count) {
      return MakeStatus(StatusCode::kInvalidModel, "dims ", ShapeToString(shape), " of ",
                        DataTypeName(*dtype), " need ",
                        static_cast<uint64_t>(typed_count) * field.per_element, " values in ",
                        field.name, ", got ", field.size);
    }
    return Status::Ok();
  }
  if (*dtype == DataType::kString) {
    return MakeStatus(StatusCode::kInvalidModel,
                      "string tensors must use string_data, not raw_data (",
                      proto.raw_data().size(), " bytes)");
  }
  if (overflow || proto.raw_data().size() != needed) {
    return MakeStatus(StatusCode::kInvalidModel, "dims ", ShapeToString(shape), " of ",
                      DataTypeName(*dtype), " need ",
                      overflow ? "more than 2^64" : std::to_string(needed),
                      " bytes of raw_data, got ", proto.raw_data().size());
  }
  return Status::Ok();
}

// The tensor `proto` holds. With `take` (then `proto` itself), raw_data is taken over rather than
// copied once every check has passed.
Result<Tensor> TensorFromProtoImpl(const onnx::TensorProto& proto, const ExternalDataFn* external,
                                   onnx::TensorProto* take) {
  NXRT_RETURN_IF_ERROR(CheckTensorProtoDataImpl(proto));
  const DataType dtype = *DataTypeFromOnnx(proto.data_type());
  Shape shape(proto.dims().begin(), proto.dims().end());
  const int64_t count = *ElementCount(shape);

  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    if (external == nullptr || !*external) {
      return MakeStatus(StatusCode::kInvalidArgument, "keeps its data outside the proto (",
                        ExternalDescription(proto), ") but no external data reader was given");
    }
    NXRT_ASSIGN_OR_RETURN(Tensor t, (*external)(proto, dtype, shape));
    if (t.dtype() != dtype || t.shape() != shape) {
      return MakeStatus(StatusCode::kInternal, "the external data reader returned ",
                        t.Description(), " for a ", DataTypeName(dtype), ShapeToString(shape),
                        " tensor");
    }
    return t;
  }

  if (!proto.has_raw_data()) return FromTypedFields(proto, TensorSpec{dtype, shape, count});
  const size_t needed = proto.raw_data().size();  // checked: count * element size
  if (take != nullptr) {
    // Moving the string hands its heap buffer over; only a string short enough to live inside
    // the std::string object is copied, and may then be misaligned.
    auto bytes = std::make_shared<std::string>(std::move(*take->mutable_raw_data()));
    take->clear_raw_data();
    if (reinterpret_cast<uintptr_t>(bytes->data()) % ElementAlignment(dtype) == 0) {
      LittleEndianToHost(bytes->data(), needed, dtype);
      if (dtype == DataType::kBool) CanonicalizeBools(bytes->data(), needed);
      void* data = bytes->data();
      return Tensor::Adopt(dtype, std::move(shape), data, std::move(bytes));
    }
    return CopiedRawData(*bytes, dtype, std::move(shape));
  }
  return CopiedRawData(proto.raw_data(), dtype, std::move(shape));
}

}  // namespace

Status CheckTensorProtoData(const onnx::TensorProto& proto) {
  Status status = CheckTensorProtoDataImpl(proto);
  if (!status.ok()) return status.WithContext(TensorLabel(proto.name()));
  return status;
}

size_t ElementAlignment(DataType dtype) {
  if (dtype == DataType::kComplex64) return 4;
  if (dtype == DataType::kComplex128) return 8;
  return IsPacked4Bit(dtype) ? 1 : DataTypeSize(dtype);
}

Result<Tensor> TensorFromProto(const onnx::TensorProto& proto, const ExternalDataFn* external) {
  try {
    Result<Tensor> r = TensorFromProtoImpl(proto, external, nullptr);
    if (!r.ok()) return r.status().WithContext(TensorLabel(proto.name()));
    return r;
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, TensorLabel(proto.name()),
                      ": out of memory while copying its data");
  }
}

Result<Tensor> TakeTensorFromProto(onnx::TensorProto& proto, const ExternalDataFn* external) {
  try {
    Result<Tensor> r = TensorFromProtoImpl(proto, external, &proto);
    if (!r.ok()) return r.status().WithContext(TensorLabel(proto.name()));
    return r;
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, TensorLabel(proto.name()),
                      ": out of memory while converting its data");
  }
}

Status TensorToProto(const Tensor& t, std::string_view name, onnx::TensorProto* out) {
  out->Clear();
  if (!t.defined()) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot write ", TensorLabel(name),
                      ": the tensor is undefined");
  }
  Tensor dense = t;
  if (!t.is_contiguous()) {
    Result<Tensor> gathered = t.Clone();
    if (!gathered.ok()) return gathered.status().WithContext("cannot write " + TensorLabel(name));
    dense = std::move(gathered).value();
  }
  try {
    out->set_name(std::string(name));
    out->set_data_type(static_cast<int32_t>(t.dtype()));
    for (int64_t d : t.shape()) out->add_dims(d);
    if (t.dtype() == DataType::kString) {
      for (const std::string& s : dense.span<std::string>()) out->add_string_data(s);
    } else {
      std::string* raw = out->mutable_raw_data();
      raw->resize(dense.byte_size());
      CopyLittleEndian(raw->data(), dense.raw_data(), dense.byte_size(), t.dtype());
    }
  } catch (const std::bad_alloc&) {
    out->Clear();
    return MakeStatus(StatusCode::kOutOfMemory, "cannot write ", TensorLabel(name), " (",
                      t.Description(), "): out of memory");
  }
  return Status::Ok();
}

namespace {

Result<Tensor> SparseToDenseImpl(const onnx::SparseTensorProto& proto,
                                 const ExternalDataFn* external) {
  NXRT_ASSIGN_OR_RETURN(Tensor values, TensorFromProto(proto.values(), external));
  NXRT_ASSIGN_OR_RETURN(Tensor indices, TensorFromProto(proto.indices(), external));
  Shape shape(proto.dims().begin(), proto.dims().end());
  Result<int64_t> dense_count = ElementCount(shape);
  if (!dense_count.ok()) {
    return Status(StatusCode::kInvalidModel, "dims: " + dense_count.status().message());
  }
  if (values.rank() != 1) {
    return MakeStatus(StatusCode::kInvalidModel, "values must be 1-D [NNZ], got ",
                      values.Description());
  }
  const int64_t nnz = values.shape()[0];
  if (indices.dtype() != DataType::kInt64) {
    return MakeStatus(StatusCode::kInvalidModel, "indices must be int64, got ",
                      indices.Description());
  }
  const bool linear = indices.rank() == 1 && indices.shape()[0] == nnz;
  const bool coordinates = indices.rank() == 2 && indices.shape()[0] == nnz &&
                           indices.shape()[1] == static_cast<int64_t>(shape.size());
  if (!linear && !coordinates) {
    return MakeStatus(StatusCode::kInvalidModel, "indices ", indices.Description(),
                      " fit neither [NNZ] = [", nnz, "] nor [NNZ, rank] = [", nnz, ",",
                      shape.size(), "] for ", nnz, " values and dense shape ",
                      ShapeToString(shape));
  }

  NXRT_ASSIGN_OR_RETURN(Tensor dense, Tensor::Allocate(values.dtype(), shape));
  const std::vector<int64_t> strides = ContiguousStrides(shape);
  const int64_t* index = indices.data<int64_t>();
  const size_t element_size = DataTypeSize(values.dtype());
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t position = 0;
    if (linear) {
      position = index[k];
      if (position < 0 || position >= *dense_count) {
        return MakeStatus(StatusCode::kInvalidModel, "index ", k, " is ", position,
                          ", outside [0, ", *dense_count, ") for dense shape ",
                          ShapeToString(shape));
      }
    } else {
      for (size_t axis = 0; axis < shape.size(); ++axis) {
        const int64_t c =
            index[k * static_cast<int64_t>(shape.size()) + static_cast<int64_t>(axis)];
        if (c < 0 || c >= shape[axis]) {
          return MakeStatus(StatusCode::kInvalidModel, "index ", k, " has coordinate ", c,
                            " on axis ", axis, ", outside [0, ", shape[axis], ") for dense shape ",
                            ShapeToString(shape));
        }
        position += c * strides[axis];
      }
    }
    if (values.dtype() == DataType::kString) {
      dense.mutable_data<std::string>()[position] = values.data<std::string>()[k];
    } else {
      std::memcpy(static_cast<std::byte*>(dense.mutable_raw_data()) + position * element_size,
                  static_cast<const std::byte*>(values.raw_data()) + k * element_size,
                  element_size);
    }
  }
  return dense;
}

}  // namespace

Result<Tensor> SparseTensorToDense(const onnx::SparseTensorProto& proto,
                                   const ExternalDataFn* external) {
  const std::string label = "sparse " + TensorLabel(proto.values().name());
  try {
    Result<Tensor> r = SparseToDenseImpl(proto, external);
    if (!r.ok()) return r.status().WithContext(label);
    return r;
  } catch (const std::bad_alloc&) {
    return MakeStatus(StatusCode::kOutOfMemory, label, ": out of memory while densifying");
  }
}

}  // namespace nxrt::ir
