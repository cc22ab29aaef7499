// tools/nxrt/tensor_summary.h: what `nxrt run` says about each input and output value, as text
// and as JSON (`run --json`): kind, dtype, shape, and for numeric tensors the statistics of the
// finite values, the NaN and infinity counts, and the first values; for maps and sequences of
// maps (ONNX-ML's ZipMap output) the key and value types and the first maps' keys and values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nxrt/value.h"

namespace nxrt::cli {

struct ValueSummary {
  std::string description;  // Value::Description: "float[1,512]", "seq(float)[...]", "none"
  bool tensor = false;      // a tensor (the fields below describe it)
  std::string dtype;        // DataTypeName
  Shape shape;
  int64_t elements = 0;
  bool numeric = false;     // not a string tensor: the statistics below are set
  int64_t finite = 0;       // finite values, over which min, max and mean are taken
  double min = 0, max = 0, mean = 0;
  int64_t nan = 0, infinite = 0;
  std::vector<double> first;            // up to 6 first values (numeric tensors)
  std::vector<std::string> first_text;  // up to 3 first strings (string tensors)
  // A map or a sequence of maps: its key and value dtypes, how many maps (1 for a map), and the
  // first kMaxMaps of them (keys, values), every entry of each.
  bool maps = false;
  std::string key_type, value_type;
  int64_t map_count = 0;
  std::vector<std::pair<Tensor, Tensor>> first_maps;
  static constexpr size_t kMaxMaps = 4;
};

ValueSummary Summarize(const Value& value);

// "float[1,2]  min -1  max 3  mean 0.5  first [..]" (one line); a map's entries as
// "{1: 0.25, 2: 0.75}", a sequence's first maps as "[{...}, {...}, ...]".
std::string SummaryText(const ValueSummary& summary);

// {"kind", "description", "dtype", "shape", "elements", "min", "max", "mean", "finite", "nan",
//  "inf", "first"}; min/max/mean are null when no value is finite. Maps and sequences of maps:
// {"kind": "map"|"map_sequence", "description", "key_type", "value_type", "maps", "first":
// [{"keys": [...], "values": [...]}, ...]} ("maps" counts them; "first" holds up to kMaxMaps).
nlohmann::ordered_json SummaryJson(const ValueSummary& summary);

}  // namespace nxrt::cli
