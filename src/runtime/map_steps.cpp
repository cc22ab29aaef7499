// runtime/map_steps.cpp: see map_steps.h.
#include "runtime/map_steps.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/sequence_steps.h"

namespace nxrt::runtime {
namespace {

using Inputs = std::span<const Value* const>;

constexpr std::string_view kMlDomain = "ai.onnx.ml";

// Input 0 as a map.
Result<const Value*> MapInput(Inputs inputs) {
  const Value* v = inputs.empty() ? nullptr : inputs[0];
  if (v == nullptr || !v->is_map()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 must be a map, got ",
                      v ? v->Description() : "nothing");
  }
  return v;
}

// The index of `key` among the sorted keys of `map`, or -1.
int64_t FindKey(const Value& map, const std::string& key) {
  const auto keys = map.map_keys().span<std::string>();
  const auto it = std::lower_bound(keys.begin(), keys.end(), key);
  return it != keys.end() && *it == key ? it - keys.begin() : -1;
}
int64_t FindKey(const Value& map, int64_t key) {
  const auto keys = map.map_keys().span<int64_t>();
  const auto it = std::lower_bound(keys.begin(), keys.end(), key);
  return it != keys.end() && *it == key ? it - keys.begin() : -1;
}

// ---- ZipMap ----

// ZipMap's keys, sorted and unique, and for each the column it takes (a repeated label's last).
struct ZipKeys {
  Tensor keys;
  std::vector<size_t> columns;
  size_t labels = 0;  // attribute length, the row length ZipMap takes
};

template <typename K>
Result<ZipKeys> MakeZipKeys(const std::vector<K>& labels) {
  std::vector<size_t> order(labels.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Sorted by label; among equal labels the last column first, which unique then keeps.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return labels[a] < labels[b] || (labels[a] == labels[b] && a > b);
  });
  order.erase(std::unique(order.begin(), order.end(),
                          [&](size_t a, size_t b) { return labels[a] == labels[b]; }),
              order.end());
  std::vector<K> keys;
  for (size_t c : order) keys.push_back(labels[c]);
  ZipKeys zip;
  NXRT_ASSIGN_OR_RETURN(zip.keys, Tensor::FromVector<K>({static_cast<int64_t>(keys.size())}, keys));
  zip.columns = std::move(order);
  zip.labels = labels.size();
  return zip;
}

Status ZipMap(const ZipKeys& zip, Inputs inputs, std::vector<Value>& outputs) {
  const Value* v = inputs.empty() ? nullptr : inputs[0];
  if (v == nullptr || !v->is_tensor() || v->dtype() != DataType::kFloat ||
      (v->tensor().rank() != 1 && v->tensor().rank() != 2)) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 must be a 1-D or 2-D float tensor, ",
                      "got ", v ? v->Description() : "nothing");
  }
  NXRT_ASSIGN_OR_RETURN(
      Tensor x, v->tensor().is_contiguous() ? Result<Tensor>(v->tensor()) : v->tensor().Clone());
  const int64_t rows = x.rank() == 2 ? x.shape()[0] : 1;
  const int64_t width = x.shape().back();
  if (width != static_cast<int64_t>(zip.labels)) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 is ", x.Description(), ": rows of ",
                      width, " values, but the node has ", zip.labels,
                      " class labels; give one value per label");
  }
  const float* data = x.data<float>();
  std::vector<Value> maps;
  maps.reserve(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    NXRT_ASSIGN_OR_RETURN(
        Tensor values,
        Tensor::Allocate(DataType::kFloat, {static_cast<int64_t>(zip.columns.size())}));
    float* out = values.mutable_data<float>();
    for (size_t i = 0; i < zip.columns.size(); ++i) out[i] = data[r * width + zip.columns[i]];
    NXRT_ASSIGN_OR_RETURN(Value map, Value::Map(zip.keys, values));
    maps.push_back(std::move(map));
  }
  NXRT_ASSIGN_OR_RETURN(outputs[0],
                        Value::MapSequence(zip.keys.dtype(), DataType::kFloat, std::move(maps)));
  return Status::Ok();
}

Result<RuntimeStepFactory> MakeZipMap(const NodeInfo& node) {
  const bool strings = node.HasAttribute("classlabels_strings");
  const bool ints = node.HasAttribute("classlabels_int64s");
  if (strings == ints) {
    return node.Error(StatusCode::kInvalidModel, "give exactly one of the attributes ",
                      "'classlabels_strings' and 'classlabels_int64s' (the map's keys); it has ",
                      strings ? "both" : "neither");
  }
  ZipKeys zip;
  if (strings) {
    NXRT_ASSIGN_OR_RETURN(std::vector<std::string> labels, node.GetStrings("classlabels_strings"));
    NXRT_ASSIGN_OR_RETURN(zip, MakeZipKeys(labels));
  } else {
    NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> labels, node.GetInts("classlabels_int64s"));
    NXRT_ASSIGN_OR_RETURN(zip, MakeZipKeys(labels));
  }
  if (zip.labels == 0) {
    return node.Error(StatusCode::kInvalidModel, "attribute '",
                      strings ? "classlabels_strings" : "classlabels_int64s",
                      "' is empty; give one label per class");
  }
  return StatelessStep([zip = std::move(zip)](Inputs inputs, std::vector<Value>& outputs) {
    return ZipMap(zip, inputs, outputs);
  });
}

// ---- DictVectorizer ----

template <typename K, typename V>
void Vectorize(const Value& map, const std::vector<K>& vocabulary, V* out) {
  const V* values = map.map_values().data<V>();
  for (size_t i = 0; i < vocabulary.size(); ++i) {
    const int64_t at = FindKey(map, vocabulary[i]);
    out[i] = at >= 0 ? values[at] : V();
  }
}

template <typename K>
Status DictVectorizer(const std::vector<K>& vocabulary, Inputs inputs,
                      std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* map, MapInput(inputs));
  if (map->map_key_dtype() != DataTypeOf<K>()) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 is ", map->Description(),
                      " but the node's vocabulary is of ", DataTypeName(DataTypeOf<K>()),
                      " keys; give a map with ", DataTypeName(DataTypeOf<K>()), " keys");
  }
  NXRT_ASSIGN_OR_RETURN(
      Tensor y, Tensor::Allocate(map->dtype(), {1, static_cast<int64_t>(vocabulary.size())}));
  switch (map->dtype()) {
    case DataType::kFloat: Vectorize(*map, vocabulary, y.mutable_data<float>()); break;
    case DataType::kDouble: Vectorize(*map, vocabulary, y.mutable_data<double>()); break;
    case DataType::kInt64: Vectorize(*map, vocabulary, y.mutable_data<int64_t>()); break;
    default: Vectorize(*map, vocabulary, y.mutable_data<std::string>()); break;
  }
  outputs[0] = Value(std::move(y));
  return Status::Ok();
}

Result<RuntimeStepFactory> MakeDictVectorizer(const NodeInfo& node) {
  const bool strings = node.HasAttribute("string_vocabulary");
  const bool ints = node.HasAttribute("int64_vocabulary");
  if (strings == ints) {
    return node.Error(StatusCode::kInvalidModel, "give exactly one of the attributes ",
                      "'string_vocabulary' and 'int64_vocabulary'; it has ",
                      strings ? "both" : "neither");
  }
  if (strings) {
    NXRT_ASSIGN_OR_RETURN(std::vector<std::string> vocabulary,
                          node.GetStrings("string_vocabulary"));
    return StatelessStep([vocabulary = std::move(vocabulary)](Inputs in, std::vector<Value>& out) {
      return DictVectorizer(vocabulary, in, out);
    });
  }
  NXRT_ASSIGN_OR_RETURN(std::vector<int64_t> vocabulary, node.GetInts("int64_vocabulary"));
  return StatelessStep([vocabulary = std::move(vocabulary)](Inputs in, std::vector<Value>& out) {
    return DictVectorizer(vocabulary, in, out);
  });
}

// ---- CastMap ----

struct CastMapAttributes {
  DataType to = DataType::kFloat;
  bool sparse = false;
  int64_t max_map = 1;
};

// `s` as std::stof (float) or std::stoll (int64) reads it: its longest leading number after
// blanks. Errors: kInvalidArgument when it has none or it is out of range, naming map key `key`.
template <typename T>
Result<T> ParseMapValue(const std::string& s, int64_t key) {
  errno = 0;
  char* end = nullptr;
  T parsed;
  if constexpr (std::is_same_v<T, float>) {
    parsed = std::strtof(s.c_str(), &end);
  } else {
    parsed = std::strtoll(s.c_str(), &end, 10);
  }
  if (end == s.c_str() || errno == ERANGE) {
    return MakeStatus(StatusCode::kInvalidArgument, "the value of key ", key, " is \"", s,
                      "\", which holds no ", DataTypeName(DataTypeOf<T>()),
                      " number in range; CastMap reads numbers from strings");
  }
  return parsed;
}

// Writes value `i` of `map` cast to `to` at out[at].
Status CastOne(const Value& map, size_t i, DataType to, Tensor& out, int64_t at) {
  const int64_t key = map.map_keys().data<int64_t>()[i];
  if (map.dtype() == DataType::kString) {
    const std::string& s = map.map_values().data<std::string>()[i];
    if (to == DataType::kString) {
      out.mutable_data<std::string>()[at] = s;
    } else if (to == DataType::kFloat) {
      NXRT_ASSIGN_OR_RETURN(out.mutable_data<float>()[at], ParseMapValue<float>(s, key));
    } else {
      NXRT_ASSIGN_OR_RETURN(out.mutable_data<int64_t>()[at], ParseMapValue<int64_t>(s, key));
    }
    return Status::Ok();
  }
  const float f = map.map_values().data<float>()[i];
  if (to == DataType::kString) {
    out.mutable_data<std::string>()[at] = std::to_string(f);
  } else if (to == DataType::kFloat) {
    out.mutable_data<float>()[at] = f;
  } else {
    // -2^63 is exact in float; 2^63 is the first value past the range.
    if (!(f >= -9.2233720368547758e18F && f < 9.2233720368547758e18F)) {
      return MakeStatus(StatusCode::kInvalidArgument, "the value of key ", key, " is ", f,
                        ", which int64 cannot hold; CastMap to TO_INT64 takes values in "
                        "[-2^63, 2^63)");
    }
    out.mutable_data<int64_t>()[at] = static_cast<int64_t>(f);
  }
  return Status::Ok();
}

Status CastMap(const CastMapAttributes& attr, Inputs inputs, std::vector<Value>& outputs) {
  NXRT_ASSIGN_OR_RETURN(const Value* map, MapInput(inputs));
  if (map->map_key_dtype() != DataType::kInt64 ||
      (map->dtype() != DataType::kString && map->dtype() != DataType::kFloat)) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 is ", map->Description(),
                      "; CastMap takes map(int64,string) or map(int64,float)");
  }
  const auto keys = map->map_keys().span<int64_t>();
  const int64_t n = attr.sparse ? attr.max_map : static_cast<int64_t>(keys.size());
  NXRT_ASSIGN_OR_RETURN(Tensor y, Tensor::Allocate(attr.to, {1, n}));
  if (!attr.sparse) {
    for (size_t i = 0; i < keys.size(); ++i) {
      NXRT_RETURN_IF_ERROR(CastOne(*map, i, attr.to, y, static_cast<int64_t>(i)));
    }
    outputs[0] = Value(std::move(y));
    return Status::Ok();
  }
  if (!keys.empty() && keys.front() < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "input 0 has key ", keys.front(),
                      "; in SPARSE form keys are output positions and must be >= 0");
  }
  for (int64_t k = 0; k < n; ++k) {
    switch (attr.to) {
      case DataType::kString: y.mutable_data<std::string>()[k] = "0.f"; break;
      case DataType::kFloat: y.mutable_data<float>()[k] = 0.0F; break;
      default: y.mutable_data<int64_t>()[k] = 0; break;
    }
  }
  for (size_t i = 0; i < keys.size() && keys[i] < n; ++i) {
    NXRT_RETURN_IF_ERROR(CastOne(*map, i, attr.to, y, keys[i]));
  }
  outputs[0] = Value(std::move(y));
  return Status::Ok();
}

Result<RuntimeStepFactory> MakeCastMap(const NodeInfo& node) {
  CastMapAttributes attr;
  NXRT_ASSIGN_OR_RETURN(std::string cast_to, node.GetString("cast_to", "TO_FLOAT"));
  if (cast_to == "TO_FLOAT") {
    attr.to = DataType::kFloat;
  } else if (cast_to == "TO_INT64") {
    attr.to = DataType::kInt64;
  } else if (cast_to == "TO_STRING") {
    attr.to = DataType::kString;
  } else {
    return node.Error(StatusCode::kInvalidModel, "attribute 'cast_to' is \"", cast_to,
                      "\"; give TO_FLOAT, TO_INT64 or TO_STRING");
  }
  NXRT_ASSIGN_OR_RETURN(std::string form, node.GetString("map_form", "DENSE"));
  if (form != "DENSE" && form != "SPARSE") {
    return node.Error(StatusCode::kInvalidModel, "attribute 'map_form' is \"", form,
                      "\"; give DENSE or SPARSE");
  }
  attr.sparse = form == "SPARSE";
  NXRT_ASSIGN_OR_RETURN(attr.max_map, node.GetInt("max_map", 1));
  if (attr.sparse && attr.max_map <= 0) {
    return node.Error(StatusCode::kInvalidModel, "attribute 'max_map' is ", attr.max_map,
                      "; in SPARSE form it is the output length and must be > 0");
  }
  return StatelessStep([attr](Inputs inputs, std::vector<Value>& outputs) {
    return CastMap(attr, inputs, outputs);
  });
}

}  // namespace

bool IsMapOp(std::string_view domain, std::string_view op_type) {
  return domain == kMlDomain &&
         (op_type == "ZipMap" || op_type == "DictVectorizer" || op_type == "CastMap");
}

Result<RuntimeStepFactory> MakeMapStep(const NodeInfo& node) {
  const std::string& op = node.op_type();
  if (node.domain() == kMlDomain) {
    if (op == "ZipMap") return MakeZipMap(node);
    if (op == "DictVectorizer") return MakeDictVectorizer(node);
    if (op == "CastMap") return MakeCastMap(node);
  }
  return node.Error(StatusCode::kNotImplemented, "not a map op");
}

}  // namespace nxrt::runtime
