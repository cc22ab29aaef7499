// tools/nxrt/tensor_summary.h: what `nxrt run` says about each input and output value, as text
// and as JSON (`run --json`): kind, dtype, shape, and for numeric tensors the statistics of the
// finite values, the NaN and infinity counts, and the first values.
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
};

ValueSummary Summarize(const Value& value);

// "float[1,2]  min -1  max 3  mean 0.5  first [..]" (one line).
std::string SummaryText(const ValueSummary& summary);

// {"kind", "description", "dtype", "shape", "elements", "min", "max", "mean", "finite", "nan",
//  "inf", "first"}; min/max/mean are null when no value is finite.
nlohmann::ordered_json SummaryJson(const ValueSummary& summary);

}  // namespace nxrt::cli
