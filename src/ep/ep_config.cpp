// ep/ep_config.cpp: EpConfig's storage and typed getters (nxrt/ep_config.h).
//
// Layer: nxrt_ep.
#include "nxrt/ep_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace nxrt {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status BadValue(std::string_view key, std::string_view value, std::string_view expected) {
  return MakeStatus(StatusCode::kInvalidArgument, "option '", key, "' = '", value, "' is not ",
                    expected);
}

}  // namespace

EpConfig::EpConfig(std::initializer_list<std::pair<std::string, std::string>> options) {
  for (const auto& [key, value] : options) Set(key, value);
}

void EpConfig::Set(std::string key, std::string value) {
  options_.insert_or_assign(std::move(key), std::move(value));
}

bool EpConfig::Has(std::string_view key) const { return options_.find(key) != options_.end(); }

std::optional<std::string> EpConfig::Get(std::string_view key) const {
  auto it = options_.find(key);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::string EpConfig::GetString(std::string_view key, std::string_view default_value) const {
  auto it = options_.find(key);
  return it == options_.end() ? std::string(default_value) : it->second;
}

Result<int64_t> EpConfig::GetInt(std::string_view key, int64_t default_value) const {
  auto it = options_.find(key);
  if (it == options_.end()) return default_value;
  const std::string& text = it->second;
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) return BadValue(key, text, "an integer in int64 range");
  if (ec != std::errc() || ptr != end || begin == end) return BadValue(key, text, "an integer");
  return value;
}

Result<double> EpConfig::GetDouble(std::string_view key, double default_value) const {
  auto it = options_.find(key);
  if (it == options_.end()) return default_value;
  const std::string& text = it->second;
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) {
    return BadValue(key, text, "a number");
  }
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return BadValue(key, text, "a number");
  if (!std::isfinite(value)) return BadValue(key, text, "a finite number");
  return value;
}

Result<bool> EpConfig::GetBool(std::string_view key, bool default_value) const {
  auto it = options_.find(key);
  if (it == options_.end()) return default_value;
  std::string text = Lower(it->second);
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  return BadValue(key, it->second, "a bool (use true/false, 1/0, yes/no or on/off)");
}

Status EpConfig::CheckKeys(std::span<const std::string_view> known) const {
  std::string unknown;
  int count = 0;
  for (const auto& [key, value] : options_) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    unknown += (count++ ? ", '" : "'") + key + "'";
  }
  if (count == 0) return Status::Ok();
  std::string known_list;
  for (size_t i = 0; i < known.size(); ++i) {
    known_list += (i ? ", '" : "'") + std::string(known[i]) + "'";
  }
  return MakeStatus(StatusCode::kInvalidArgument, "unknown option", count > 1 ? "s " : " ", unknown,
                    " (known: ", known.empty() ? std::string("none") : known_list, ")");
}

std::string EpConfig::ToString() const {
  std::string out;
  for (const auto& [key, value] : options_) {
    if (!out.empty()) out += ',';
    out += key + "=" + value;
  }
  return out;
}

}  // namespace nxrt
