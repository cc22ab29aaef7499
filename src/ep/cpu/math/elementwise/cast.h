// ep/cpu/math/elementwise/cast.h: ONNX Cast (and CastLike) between all numeric types, bool and
// string.
//
// Layer: nxrt_cpu_math (framework-free reference math of the CPU EP; no IR, no EP API).
// ONNX source: Cast-13 (Cast-6/9 semantics are the same on their types; CastLike-15 is Cast with
// the target type taken from a tensor).
//
// Semantics, element by element (one Cast is one conversion: callers must never fuse two casts,
// e.g. float → int32 → bool differs from float → bool):
//   numeric → bool: x != 0 (NaN is true); bool → numeric: 0 or 1.
//   floating → integer: truncation toward zero; out-of-range values and NaN give what NumPy gives
//     on x86-64 (see FloatToInt in element_types.h); ONNX leaves them undefined.
//   integer → integer: two's complement wrap. Anything → float16/bfloat16: nearest even, once
//     (double → float16 is rounded directly, not through float).
//   Anything → float8 (Cast-19): nearest even; with `saturate` (the default) out-of-range
//     values and infinities become the largest finite value of their sign, without it NaN (or
//     infinity for float8e5m2), as in ONNX's table (nxrt/data_type.h Float8).
//   int4/uint4 (Cast-21, packed two per byte) ↔ numeric, bool and float8: the nibble's value;
//     into int4/uint4, as ONNX Runtime 1.30 casts (measured; ONNX leaves it undefined): floating
//     values round half away from zero (NaN and infinities give 0), then the low 4 bits are
//     kept (two's complement wrap: 9 -> int4 -7, -1 -> uint4 15). No string ↔ int4.
//   numeric → string: integers in decimal; floating values as NumPy's str() prints them: the
//     shortest digits that read back to the same value of the source type, positional for
//     1e-4 <= |x| < 1e16 ("0.1", "100.0", "-0.0"), scientific otherwise ("1e-05", "1.5e+16");
//     "NaN", "INF", "-INF" for the special values; bool as "True"/"False".
//   string → numeric: leading/trailing blanks are ignored; plain and scientific forms ("3.14",
//     "1e-5", "1E8", "+2"); "NaN", "INF", "+INF", "-INF", "Infinity" in any case. An integer
//     target reads an integer exactly, and otherwise truncates a real ("100.5" → 100). A bool
//     target reads "true"/"false" in any case or a number (non-zero is true). Any other text is a
//     kInvalidArgument error naming the string (ONNX calls it undefined behaviour).
#pragma once

#include <cstdint>
#include <string>

#include "nxrt/data_type.h"
#include "nxrt/status.h"
#include "nxrt/tensor.h"

namespace nxrt::cpu::math {

using CastFn = Status (*)(const void* in, void* out, int64_t count);

struct CastPlan {
  DataType from = DataType::kUndefined;
  DataType to = DataType::kUndefined;
  CastFn fn = nullptr;
};

// Resolves the conversion. Types: float, double, float16, bfloat16, float8, [u]int4..64, bool,
// string on either side. `saturate` is Cast-19's attribute (only float8 targets read it).
// Errors: kUnsupported for other types (complex, undefined, string ↔ int4).
Result<CastPlan> PrepareCast(DataType from, DataType to, bool saturate = true);

// Converts `count` contiguous elements (std::string objects for kString; an int4/uint4 side is
// whole packed bytes, so a range of a packed tensor must start at an even element). `in` and
// `out` must not overlap unless the types are equal. Errors only for unparseable strings.
Status RunCast(const CastPlan& plan, const void* in, void* out, int64_t count);

// Prepare + run on a contiguous tensor; an undefined `*out` is allocated with the input's shape.
Status Cast(const Tensor& in, DataType to, Tensor* out);

// The string Cast produces for one floating value of `type` (float, double, float16, bfloat16).
std::string FormatFloating(double value, DataType type);

}  // namespace nxrt::cpu::math
