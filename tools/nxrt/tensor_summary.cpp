// tools/nxrt/tensor_summary.cpp: see tensor_summary.h.
#include "tensor_summary.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace nxrt::cli {
namespace {

double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return static_cast<float>(t.data<Float16>()[i]);
    case DataType::kBFloat16: return static_cast<float>(t.data<BFloat16>()[i]);
    case DataType::kInt8: return t.data<int8_t>()[i];
    case DataType::kUint8: return t.data<uint8_t>()[i];
    case DataType::kInt16: return t.data<int16_t>()[i];
    case DataType::kUint16: return t.data<uint16_t>()[i];
    case DataType::kInt32: return t.data<int32_t>()[i];
    case DataType::kUint32: return t.data<uint32_t>()[i];
    case DataType::kInt64: return static_cast<double>(t.data<int64_t>()[i]);
    case DataType::kUint64: return static_cast<double>(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<bool>()[i] ? 1 : 0;
    case DataType::kFloat8E4M3FN: return static_cast<float>(t.data<Float8E4M3FN>()[i]);
    case DataType::kFloat8E4M3FNUZ: return static_cast<float>(t.data<Float8E4M3FNUZ>()[i]);
    case DataType::kFloat8E5M2: return static_cast<float>(t.data<Float8E5M2>()[i]);
    case DataType::kFloat8E5M2FNUZ: return static_cast<float>(t.data<Float8E5M2FNUZ>()[i]);
    case DataType::kUint4:
    case DataType::kInt4: {
      const int nibble = (t.data<uint8_t>()[i / 2] >> (4 * (i % 2))) & 0x0F;
      return t.dtype() == DataType::kInt4 && nibble >= 8 ? nibble - 16 : nibble;
    }
    default: return std::nan("");
  }
}

bool IsNumeric(DataType t) {
  return t != DataType::kString && t != DataType::kComplex64 && t != DataType::kComplex128 &&
         t != DataType::kUndefined;
}

// Element i of a map's keys or values (int64, float, double or string) as JSON; null for a
// value that is not finite.
nlohmann::ordered_json MapItemJson(const Tensor& t, int64_t i) {
  double v = 0;
  switch (t.dtype()) {
    case DataType::kInt64: return t.data<int64_t>()[i];
    case DataType::kFloat: v = t.data<float>()[i]; break;
    case DataType::kDouble: v = t.data<double>()[i]; break;
    default: return t.data<std::string>()[i];
  }
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// "{1: 0.25, 2: 0.75}", strings quoted ('cat').
std::string MapText(const Tensor& keys, const Tensor& values) {
  std::ostringstream os;
  os << std::setprecision(6) << "{";
  const auto item = [&os](const Tensor& t, int64_t i) {
    switch (t.dtype()) {
      case DataType::kInt64: os << t.data<int64_t>()[i]; break;
      case DataType::kFloat: os << t.data<float>()[i]; break;
      case DataType::kDouble: os << t.data<double>()[i]; break;
      default: os << "'" << t.data<std::string>()[i] << "'"; break;
    }
  };
  for (int64_t i = 0; i < keys.element_count(); ++i) {
    if (i) os << ", ";
    item(keys, i);
    os << ": ";
    item(values, i);
  }
  os << "}";
  return os.str();
}

}  // namespace

ValueSummary Summarize(const Value& value) {
  ValueSummary s;
  s.description = value.Description();
  if (value.is_map() || value.is_map_sequence()) {
    s.maps = true;
    s.key_type = std::string(DataTypeName(value.map_key_dtype()));
    s.value_type = std::string(DataTypeName(value.dtype()));
    if (value.is_map()) {
      s.map_count = 1;
      s.first_maps.emplace_back(value.map_keys(), value.map_values());
    } else {
      s.map_count = static_cast<int64_t>(value.maps().size());
      for (size_t i = 0; i < value.maps().size() && i < ValueSummary::kMaxMaps; ++i) {
        s.first_maps.emplace_back(value.maps()[i].map_keys(), value.maps()[i].map_values());
      }
    }
    return s;
  }
  if (!value.is_tensor()) return s;
  Tensor t = value.tensor();
  if (!t.is_contiguous()) {
    Result<Tensor> copy = t.Clone();
    if (copy.ok()) t = std::move(copy).value();
  }
  s.tensor = true;
  s.dtype = std::string(DataTypeName(t.dtype()));
  s.shape = t.shape();
  s.elements = t.element_count();
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < std::min<int64_t>(s.elements, 3); ++i) {
      s.first_text.push_back(t.data<std::string>()[i]);
    }
    return s;
  }
  if (!IsNumeric(t.dtype())) return s;
  s.numeric = true;
  double sum = 0;
  s.min = INFINITY;
  s.max = -INFINITY;
  for (int64_t i = 0; i < s.elements; ++i) {
    const double v = ElementAsDouble(t, i);
    if (i < 6) s.first.push_back(v);
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++s.infinite;
    } else {
      ++s.finite;
      s.min = std::min(s.min, v);
      s.max = std::max(s.max, v);
      sum += v;
    }
  }
  s.mean = s.finite > 0 ? sum / static_cast<double>(s.finite) : 0;
  return s;
}

std::string SummaryText(const ValueSummary& s) {
  std::ostringstream os;
  os << s.description;
  if (s.maps) {
    const bool sequence = s.description.starts_with("seq(");
    os << "  " << (sequence ? "[" : "");
    for (size_t i = 0; i < s.first_maps.size(); ++i) {
      os << (i ? ", " : "") << MapText(s.first_maps[i].first, s.first_maps[i].second);
    }
    if (s.map_count > static_cast<int64_t>(s.first_maps.size())) os << ", ...";
    os << (sequence ? "]" : "");
    return os.str();
  }
  if (!s.first_text.empty()) os << "  first '" << s.first_text.front() << "'";
  if (!s.numeric || s.elements == 0) return os.str();
  os << std::setprecision(6);
  if (s.finite > 0) os << "  min " << s.min << "  max " << s.max << "  mean " << s.mean;
  if (s.nan) os << "  nan " << s.nan;
  if (s.infinite) os << "  inf " << s.infinite;
  os << "  first [";
  for (size_t i = 0; i < s.first.size(); ++i) os << (i ? ", " : "") << s.first[i];
  os << (s.elements > static_cast<int64_t>(s.first.size()) ? ", ...]" : "]");
  return os.str();
}

nlohmann::ordered_json SummaryJson(const ValueSummary& s) {
  using Json = nlohmann::ordered_json;
  Json j;
  const bool sequence_of_maps = s.maps && s.description.starts_with("seq(");
  j["kind"] = s.tensor            ? "tensor"
              : sequence_of_maps  ? "map_sequence"
              : s.maps            ? "map"
              : s.description == "none" ? "none"
                                        : "sequence";
  j["description"] = s.description;
  if (s.maps) {
    j["key_type"] = s.key_type;
    j["value_type"] = s.value_type;
    j["maps"] = s.map_count;
    Json first = Json::array();
    for (const auto& [keys, values] : s.first_maps) {
      Json map;
      map["keys"] = Json::array();
      map["values"] = Json::array();
      for (int64_t i = 0; i < keys.element_count(); ++i) {
        map["keys"].push_back(MapItemJson(keys, i));
        map["values"].push_back(MapItemJson(values, i));
      }
      first.push_back(std::move(map));
    }
    j["first"] = std::move(first);
    return j;
  }
  if (!s.tensor) return j;
  j["dtype"] = s.dtype;
  j["shape"] = s.shape;
  j["elements"] = s.elements;
  if (s.numeric) {
    const bool any = s.finite > 0;
    j["min"] = any ? Json(s.min) : Json(nullptr);
    j["max"] = any ? Json(s.max) : Json(nullptr);
    j["mean"] = any ? Json(s.mean) : Json(nullptr);
    j["finite"] = s.finite;
    j["nan"] = s.nan;
    j["inf"] = s.infinite;
    Json first = Json::array();
    for (double v : s.first) first.push_back(std::isfinite(v) ? Json(v) : Json(nullptr));
    j["first"] = first;
  } else if (!s.first_text.empty()) {
    j["first"] = s.first_text;
  }
  return j;
}

}  // namespace nxrt::cli
