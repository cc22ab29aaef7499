// ir/tensor_io.h: reading and writing tensors and ONNX values in files: ONNX .pb
// (TensorProto, SequenceProto, OptionalProto), NumPy .npy and .npz.
//
// Layer: nxrt_ir. Used by tests, the conformance runner and the CLI; no protobuf in this header.
// Every reader checks what it reads and never aborts on a bad file: errors name the file (or the
// `what` given to the in-memory variants) and the problem with concrete values, e.g.
//   "file 'x.npy': header says shape (2, 3) of <f4 = 24 bytes but only 20 bytes follow".
// Error codes: kIoError when a file cannot be opened, read or written (missing files included);
// kInvalidArgument when the contents are malformed; kNotImplemented for valid contents nxrt does
// not read (maps, npy dtypes other than those listed below, zip features other than stored and
// deflate entries); kOutOfMemory when the data does not fit in memory; the codes of
// ir/tensor_proto.h (kInvalidModel for a TensorProto whose data does not match its dims).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::ir {

// An ONNX value as found in test data: a tensor, a sequence of values, or an optional value.
struct OnnxValue {
  enum class Kind { kTensor, kSequence, kOptional };
  Kind kind = Kind::kTensor;
  Tensor tensor;                    // kTensor: the tensor (owned, contiguous)
  std::vector<OnnxValue> elements;  // kSequence: the elements in order; kOptional: the held
                                    // value as the single element when has_value
  bool has_value = false;           // kOptional: whether a value is held
  std::string name;                 // the name stored in the file, "" when none

  static OnnxValue FromTensor(Tensor t, std::string value_name = "");
  static OnnxValue Sequence(std::vector<OnnxValue> values, std::string value_name = "");
  // An optional holding `value`.
  static OnnxValue Optional(OnnxValue value, std::string value_name = "");
  // An empty optional.
  static OnnxValue EmptyOptional(std::string value_name = "");

  // "float[2,3]", "seq(int64[2], int64[3])", "optional(float[1])", "optional(none)".
  std::string Description() const;
};

// ---- ONNX protobuf files --------------------------------------------------------------------

// Parses a serialized TensorProto. External data is an error (bytes have no folder to resolve it
// in); `what` names the source in messages.
Result<Tensor> ParseTensorProto(std::string_view bytes, std::string_view what = "TensorProto");

// Reads a serialized TensorProto file. External data ("location" relative to the file's folder,
// optional "offset" and "length") is read and checked against the file size.
Result<Tensor> ReadTensorProtoFile(const std::filesystem::path& path);

// Writes `tensor` as a TensorProto named `name` (raw_data for numbers, string_data for strings).
// Errors: kInvalidArgument for an undefined tensor, kIoError.
Status WriteTensorProtoFile(const std::filesystem::path& path, const Tensor& tensor,
                            std::string_view name);

// Parses / reads a SequenceProto into a kSequence value. Elements may be tensors, sparse tensors
// (densified), sequences or optionals; maps give kNotImplemented.
Result<OnnxValue> ParseSequenceProto(std::string_view bytes,
                                     std::string_view what = "SequenceProto");
Result<OnnxValue> ReadSequenceProtoFile(const std::filesystem::path& path);

// Writes a kSequence value whose elements all have the same kind (a sequence of tensors, of
// sequences or of optionals; an empty sequence is written with elem_type TENSOR).
// Errors: kInvalidArgument when `sequence` is not a sequence or mixes element kinds, kIoError.
Status WriteSequenceProtoFile(const std::filesystem::path& path, const OnnxValue& sequence,
                              std::string_view name);

// Parses / reads an OptionalProto into a kOptional value (elem_type UNDEFINED is the empty
// optional). A value kind whose field is missing is an error.
Result<OnnxValue> ParseOptionalProto(std::string_view bytes,
                                     std::string_view what = "OptionalProto");
Result<OnnxValue> ReadOptionalProtoFile(const std::filesystem::path& path);

// Writes a kOptional value. Errors: kInvalidArgument when `optional` is not an optional,
// kIoError.
Status WriteOptionalProtoFile(const std::filesystem::path& path, const OnnxValue& optional,
                              std::string_view name);

// Reads an ONNX test-data file (test_data_set_*/input_N.pb, output_N.pb) as the kind the model
// declares for that input or output: kTensor -> TensorProto, kSparseTensor -> SparseTensorProto
// (densified into a kTensor value), kSequence -> SequenceProto, kOptional -> OptionalProto.
// Errors: kNotImplemented for kMap, kInvalidArgument for kUnknown, and the readers' errors.
Result<OnnxValue> ReadTestDataFile(const std::filesystem::path& path, TypeInfo::Kind expected);

// ---- NumPy ----------------------------------------------------------------------------------
// .npy formats 1.0, 2.0 and 3.0; dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16 in little
// ('<'), big ('>'), native ('=') or no ('|') byte order; C and Fortran order. The result is
// always an owned, C-order tensor in host byte order. Bytes after the array are ignored, as
// numpy does (several arrays may be saved into one file).

Result<Tensor> ParseNpy(std::string_view bytes, std::string_view what = "npy data");
Result<Tensor> ReadNpy(const std::filesystem::path& path);

// The .npy bytes of `tensor`: format 1.0 (2.0 when the header exceeds 65535 bytes), little
// endian, C order, header padded to 64 bytes. Errors: kInvalidArgument for bfloat16 (no numpy
// dtype: convert to float first), strings and undefined tensors; kOutOfMemory.
Result<std::string> SerializeNpy(const Tensor& tensor);
Status WriteNpy(const std::filesystem::path& path, const Tensor& tensor);

// An .npz (zip) archive: entries in archive order, names without the ".npy" suffix. Stored and
// deflate entries are read, CRC-32 checked; zip64 records are understood. Encrypted entries,
// other compression methods and multi-disk archives give kNotImplemented.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
Result<NamedTensors> ParseNpz(std::string_view bytes, std::string_view what = "npz data");
Result<NamedTensors> ReadNpz(const std::filesystem::path& path);

// An uncompressed .npz (stored entries named "<name>.npy", CRC-32 set) that numpy.load reads.
// Errors: those of SerializeNpy (naming the entry); kInvalidArgument for an empty or duplicate
// name; kNotImplemented when the archive would exceed 4 GiB or 65535 entries (zip64 is not
// written).
Result<std::string> SerializeNpz(const NamedTensors& tensors);
Status WriteNpz(const std::filesystem::path& path, const NamedTensors& tensors);

}  // namespace nxrt::ir
