// nxrt/tensor_io.h: tensors and values in files: NumPy .npy and ONNX protobuf (.pb TensorProto,
// SequenceProto, OptionalProto), as `nxrt run --input/--output-dir` and the conformance runner
// (`nxrt test-onnx`) read and write them.
//
// Public API (std only; implemented in src/runtime/tensor_files.cpp over the IR's readers). Every
// reader checks what it reads and never aborts on a bad file: errors name the file and the
// problem with concrete values, e.g. "file 'x.npy': header says shape (2, 3) of <f4 = 24 bytes
// but only 20 bytes follow". Codes: kIoError when a file cannot be opened, read or written;
// kInvalidArgument for malformed contents or a file name of the wrong kind; kNotImplemented for
// valid contents nxrt does not read (maps, nested sequences, npy dtypes other than f2 f4 f8 i1
// i2 i4 i8 u1 u2 u4 u8 b1 c8 c16); kInvalidModel for a TensorProto whose data does not match its
// dims. Sources: the NumPy .npy format 1.0-3.0, ONNX's onnx.proto (TensorProto, SequenceProto,
// OptionalProto) and the ONNX backend test data layout.
#pragma once

#include <string>

#include "nxrt/data_type.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"
#include "nxrt/value.h"

namespace nxrt {

// The tensor in `path`, by its extension: ".npy" (any byte order, C or Fortran order) or ".pb"
// (a serialized TensorProto; external data relative to the file's folder). The result is an
// owned, contiguous, C-order tensor in host byte order. Errors: kInvalidArgument for any other
// extension, and the readers' errors above.
Result<Tensor> ReadTensorFile(const std::string& path);

// Writes `tensor` to `path` as .npy (format 1.0, little endian, C order). Errors:
// kInvalidArgument for bfloat16 (no NumPy dtype: convert to float first), strings and undefined
// tensors; kIoError.
Status WriteNpy(const std::string& path, const Tensor& tensor);

// An ONNX test-data file (test_data_set_*/input_N.pb, output_N.pb) read as the kind the model
// declares for that input or output: kSequence reads a SequenceProto of tensors (a sequence of
// the first element's dtype, or `element_dtype` when empty, or float when that is kUndefined
// too), kOptional an OptionalProto (Value::None() when empty, else the value it holds), any other
// kind a TensorProto. Errors: kNotImplemented for a sequence of sequences or of optionals, and
// the readers' errors above.
Result<Value> ReadValueFile(const std::string& path, ValueKind kind,
                            DataType element_dtype = DataType::kUndefined);

}  // namespace nxrt
