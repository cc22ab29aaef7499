// nxrt/ep_config.h: the string options a user gives one execution provider.
//
// Part of the EP author's API (std only). The user writes options per EP (`--ep gpu:device_id=1`,
// SessionOptions, or for plugin EPs the `ep.<name>.<key>` session config entries); nxrt hands
// them to ExecutionProvider::Initialize unchanged. Keys and values are plain strings; the typed
// getters parse on demand and say which key held what when parsing fails. An EP should reject
// keys it does not know (CheckKeys) so a typo is an error, not a silently ignored option.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "nxrt/status.h"

namespace nxrt {

class EpConfig {
 public:
  EpConfig() = default;
  // EpConfig{{"device_id", "1"}, {"fast_math", "true"}}. A repeated key keeps its last value.
  EpConfig(std::initializer_list<std::pair<std::string, std::string>> options);

  // Sets `key` to `value`, replacing an earlier value.
  void Set(std::string key, std::string value);
  bool Has(std::string_view key) const;
  // All options, sorted by key.
  const std::map<std::string, std::string, std::less<>>& options() const { return options_; }
  bool empty() const { return options_.empty(); }

  // The raw value of `key`, or nullopt.
  std::optional<std::string> Get(std::string_view key) const;
  // The raw value of `key`, or `default_value` when absent.
  std::string GetString(std::string_view key, std::string_view default_value) const;
  // The value of `key` as a base-10 int64 ("4", "-1"), or `default_value` when absent.
  // Errors: kInvalidArgument when present but not an integer in int64 range, e.g.
  // "option 'threads' = 'four' is not an integer".
  Result<int64_t> GetInt(std::string_view key, int64_t default_value) const;
  // The value of `key` as a finite double ("0.5", "1e-3"), or `default_value` when absent.
  // Errors: kInvalidArgument when present but not a finite number.
  Result<double> GetDouble(std::string_view key, double default_value) const;
  // The value of `key` as a bool: "1", "true", "yes", "on" / "0", "false", "no", "off" (any
  // case), or `default_value` when absent. Errors: kInvalidArgument for any other text.
  Result<bool> GetBool(std::string_view key, bool default_value) const;

  // Ok when every key is in `known`; otherwise kInvalidArgument naming each unknown key and
  // listing the known ones, e.g. "unknown option 'thread' (known: 'device_id', 'threads')".
  Status CheckKeys(std::span<const std::string_view> known) const;

  // "device_id=1,fast_math=true" (sorted by key); "" when empty.
  std::string ToString() const;

 private:
  std::map<std::string, std::string, std::less<>> options_;
};

}  // namespace nxrt
