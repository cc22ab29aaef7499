// capi/value_convert.h: OrtValue <-> nxrt::Value, and nxrt::ValueInfo -> OrtTypeInfo.
//
// Layer: nxrt_capi (internal). Conversions share buffers where they can: an input OrtValue
// becomes a tensor borrowing its data (kept alive by the value's owner for the run); an output
// nxrt::Value becomes an OrtValue holding the nxrt tensor. String tensors are std::string arrays
// on both sides. Sequences convert element by element; a map OrtValue (ONNX_TYPE_MAP, its
// elements the keys and the values tensors, as OrtApi::CreateValue makes it) converts to and from
// an nxrt map (nxrt/value.h), sequences of maps likewise.
#pragma once

#include <memory>

#include "ep/ort_plugin/api_objects.h"
#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "nxrt/value.h"

namespace nxrt::capi {

// `value` as an nxrt value for a run. Errors: kNotImplemented for element types nxrt does not
// run (float8, 4- and 2-bit types), naming the value `name`; kInvalidArgument for a value
// without an element type or in device memory, and for a map whose keys or values nxrt::Value::Map
// refuses.
Result<Value> ToNxrtValue(const OrtValue& value, std::string_view name);

// A new OrtValue owning (sharing) `value`: tensors, sequences, maps and sequences of maps; an
// optional holding nothing is an OrtValue of ONNX_TYPE_OPTIONAL without content (HasValue 0).
Result<std::unique_ptr<OrtValue>> ToOrtValue(const Value& value);

// Copies tensor `from` into the caller's tensor `into` (a preallocated Run output). Errors:
// kInvalidArgument when `into` is not a tensor of the same element type and shape.
Status CopyIntoOrtValue(const Value& from, OrtValue& into, std::string_view name);

// The OrtTypeInfo a session reports for an input or output: tensors with their element type and
// dims (fixed sizes, -1 with the symbol for symbolic dims, -1 with "" for unknown ones; no shape
// when the rank is unknown), sequences and optionals with their element type, maps with their
// key type and value type (a sequence of maps: a map element type).
std::unique_ptr<OrtTypeInfo> TypeInfoOf(const ValueInfo& info);

}  // namespace nxrt::capi
