// runtime/map_steps.h: ONNX-ML's map ops, run by the runtime itself.
//
// Layer: nxrt_runtime. EPs see tensors only (nxrt/kernel.h), so the ops that make or read maps
// (nxrt/value.h kMap, kMapSequence) are runtime steps (graph_plan.h RuntimeStep), as the
// sequence ops are (runtime/sequence_steps.h). A map holds its keys sorted, as ONNX Runtime's
// std::map does, so every op below reads and writes maps in key order.
//
// Ops (domain ai.onnx.ml, version 1):
//   ZipMap          tensor(float) [C] or [N, C] → seq(map(string|int64, float)) of N maps (1
//                   for a 1-D input); attribute classlabels_strings or classlabels_int64s (one
//                   of them, C labels) gives the keys; a repeated label keeps its last value.
//   DictVectorizer  map(K, V) → tensor(V) [1, vocabulary size]: element i is the value of key
//                   vocabulary[i], or 0 ("" for strings) when the map lacks it; the vocabulary
//                   is string_vocabulary for string keys, int64_vocabulary for int64 keys.
//   CastMap         map(int64, string|float) → tensor [1, n]: the values in key order cast to
//                   cast_to (TO_FLOAT default, TO_INT64, TO_STRING). map_form DENSE (default): n
//                   is the map's size; SPARSE: n is max_map (default 1), element k holds key k's
//                   value or the pad (0, or "0.f" for strings), keys from max_map on are left
//                   out. Floats become strings as "%f" (std::to_string), strings become numbers
//                   by their longest leading number (std::stof, std::stoll); floats become int64
//                   by truncation.
// Errors (kInvalidArgument at run time, naming the value): an input of the wrong kind or type,
// ZipMap's row length differing from its label count, a CastMap string that is no number, a
// float out of int64's range, a negative key in SPARSE form. Bad attributes are kInvalidModel
// when the session is created.
// Source: ONNX-ML operator spec (onnx/defs/traditionalml/defs.cc); ONNX Runtime 1.30's results
// are the reference (runtime/map_steps_test.cpp).
#pragma once

#include <string_view>

#include "nxrt/node_info.h"
#include "nxrt/status.h"
#include "runtime/graph_plan.h"

namespace nxrt::runtime {

// True for ai.onnx.ml's ZipMap, DictVectorizer and CastMap.
bool IsMapOp(std::string_view domain, std::string_view op_type);

// The step of `node`, an op of IsMapOp. Errors: kInvalidModel for a bad attribute (naming it and
// its value), kNotImplemented for any other op.
Result<RuntimeStepFactory> MakeMapStep(const NodeInfo& node);

}  // namespace nxrt::runtime
