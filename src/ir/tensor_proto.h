// ir/tensor_proto.h: ONNX TensorProto / SparseTensorProto <-> nxrt::Tensor.
//
// Layer: nxrt_ir, internal (sees protobuf through libonnx's generated classes). Used by the
// ONNX loader for initializers and tensor attributes, and by ir/tensor_io.h for .pb files.
// Inline data comes from `raw_data` (little-endian bytes) or from the typed field ONNX assigns
// to each type:
//   float_data   float, complex64 (2 floats per element: real, imaginary)
//   int32_data   int32, int16, int8, uint16, uint8, bool, float16 and bfloat16 (the 16 bits)
//   int64_data   int64
//   uint64_data  uint32, uint64
//   double_data  double, complex128 (2 doubles per element)
//   string_data  string (raw_data is not allowed for strings)
// Data stored outside the proto (data_location EXTERNAL) is read through a caller's function.
#pragma once

#include <functional>
#include <string_view>

#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "onnx/onnx_pb.h"

namespace nxrt::ir {

// Reads the data of an external-data TensorProto (its `external_data` entries: location, offset,
// length, ...). Called with the proto, its checked dtype and shape; must return a tensor of
// exactly that dtype and shape (owned or borrowed from a mapped file).
// The alignment elements of `dtype` need to be read in place: the element's size, or one
// component's for complex numbers. Bytes borrowed from a file or a proto string that are less
// aligned are copied.
size_t ElementAlignment(DataType dtype);

using ExternalDataFn = std::function<Result<Tensor>(const onnx::TensorProto&, DataType, Shape)>;

// Checks, without reading external files or allocating, that `proto`'s data fits its header: a
// known data_type; dims >= 0 whose product fits int64 and whose byte size fits 64 bits; the byte
// count of raw_data, or the value count of the typed field, equals what dims and dtype need; no
// raw_data for strings; no segment. What TensorFromProto checks first, and what the loader's
// validator runs on every tensor of a model before anything else (libonnx's shape inference
// included) reads the data. Errors: as TensorFromProto's kInvalidModel and kNotImplemented.
Status CheckTensorProtoData(const onnx::TensorProto& proto);

// Converts `proto` into an owned, contiguous tensor (or the tensor `external` returns).
// Checks: a known data_type; dims >= 0 whose product fits int64; the byte count of raw_data, or
// the value count of the typed field, equals what dims and dtype need. A tensor of 0 elements may
// carry no data.
// Errors (each message starts "tensor '<name>': " and gives the numbers):
//   kInvalidModel      unknown or undefined data_type, negative dims, wrong data size, raw_data
//                      for strings;
//   kInvalidArgument   external data but `external` is null;
//   kNotImplemented    segmented tensors (`segment` set);
//   kOutOfMemory       the tensor cannot be allocated;
//   whatever `external` returns, and kInternal when it returns the wrong dtype or shape.
Result<Tensor> TensorFromProto(const onnx::TensorProto& proto,
                               const ExternalDataFn* external = nullptr);

// As TensorFromProto, but takes over `proto`'s raw_data instead of copying it: the tensor adopts
// the string's buffer (owns_data() is true), converted in place to host byte order and, for bool,
// to bytes 0 and 1. Its alignment is the heap's (16 bytes with glibc), not Allocate's 64; a
// string short enough to be stored inside the std::string object is copied when it is not aligned
// for the element type. After success `proto` has no raw_data; after an error it is unchanged.
// Typed fields and external data are read as TensorFromProto reads them.
Result<Tensor> TakeTensorFromProto(onnx::TensorProto& proto,
                                   const ExternalDataFn* external = nullptr);

// Writes `t` into `out` (cleared first) named `name`: dims, data_type, and raw_data
// (little-endian; strided tensors are gathered) for every numeric type or string_data for
// strings. Errors: kInvalidArgument for an undefined tensor; kOutOfMemory when gathering a
// strided tensor fails.
Status TensorToProto(const Tensor& t, std::string_view name, onnx::TensorProto* out);

// Densifies a SparseTensorProto: `values` is a 1-D tensor of NNZ elements, `indices` an int64
// tensor of shape [NNZ] (linear positions in row-major order) or [NNZ, rank] (coordinates), and
// `dims` the dense shape. Positions not listed are zero ("" for strings); a position listed twice
// takes the later value. External data in values or indices is read through `external`.
// Errors (message starts "sparse tensor '<values name>': "): kInvalidModel for a values tensor
// that is not 1-D, indices that are not int64 or have the wrong shape, or an index out of range
// (naming the entry, the index and the bound); errors of TensorFromProto.
Result<Tensor> SparseTensorToDense(const onnx::SparseTensorProto& proto,
                                   const ExternalDataFn* external = nullptr);

}  // namespace nxrt::ir
