// tests/fuzz/onnx_mutator.h: a structure-aware mutator over ONNX ModelProto bytes for libFuzzer.
//
// Layer: tests. Byte-level mutation almost never gets past protobuf parsing and the validator in
// a way that reaches kernels; this mutator parses the model, changes it the way a hostile or
// broken exporter would, and serializes it again. One call applies one to three of:
//   dims       a dim of an initializer, a graph input or a value_info set to an edge value
//              (0, 1, -1, 2^31, 2^32, 2^62, INT64_MAX, INT64_MIN, small numbers);
//   dtypes     an initializer's or a value's element type set to another (also unknown ones);
//   attributes an attribute's value set to an edge value (ints, floats with NaN/inf, strings
//              from the words ONNX attributes use), its type changed, removed, or one of the
//              schema's attributes added with a random value;
//   arity      a node input or output removed, added (an existing name, "" or a new name) or
//              renamed; a graph input or output dropped;
//   ops        a node's op type replaced by another op of libonnx's registry, its domain or the
//              model's opset changed;
//   subgraphs  a subgraph attribute removed, or a copy of a graph nested into a node;
//   raw data   truncated, extended, bytes set to edge values, moved to external data with a
//              hostile location;
//   nodes      removed, duplicated or swapped.
// Bytes that do not parse as a model fall back to libFuzzer's own byte mutations.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nxrt::fuzz {

using ByteMutator = size_t (*)(uint8_t* data, size_t size, size_t max_size);

// Mutates the model in `data` (`size` bytes, room for `max_size`) in place and returns its new
// size; `fallback` is libFuzzer's LLVMFuzzerMutate.
size_t MutateModel(uint8_t* data, size_t size, size_t max_size, unsigned int seed,
                   ByteMutator fallback);

// Writes into `out` the first model with a node (and the initializers it reads) copied from the
// second, or the first unchanged when either does not parse. Returns the size written (0 when
// it does not fit).
size_t CrossOverModels(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                       uint8_t* out, size_t max_out_size, unsigned int seed);

}  // namespace nxrt::fuzz
