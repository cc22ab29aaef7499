// ep/ep_registry.h: the execution providers of a session, in the user's priority order.
//
// Layer: nxrt_ep. Each entry is an EP instance, the options the user gave it and a name unique
// in the registry (the EP's type name unless the user chose another, e.g. two "cpu" EPs named
// "cpu" and "cpu_numa1"). Placement (ep/placement.h) lets the entries claim nodes in this order.
// The registry initializes and shuts down its EPs, so an EP instance belongs to one registry at
// a time; entries hold shared_ptrs so that the caller can keep a handle to an EP it registered.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/ep_config.h"
#include "nxrt/execution_provider.h"
#include "nxrt/status.h"

namespace nxrt::ep {

class EpRegistry {
 public:
  struct Entry {
    std::string name;
    std::shared_ptr<ExecutionProvider> provider;
    EpConfig config;
    bool initialized = false;
  };

  EpRegistry() = default;
  EpRegistry(const EpRegistry&) = delete;
  EpRegistry& operator=(const EpRegistry&) = delete;
  EpRegistry(EpRegistry&&) = default;
  EpRegistry& operator=(EpRegistry&&) = default;
  // Shuts down the EPs this registry initialized, last first.
  ~EpRegistry();

  // Appends `provider` with `config` under `name` (default: its type name) at the lowest
  // priority so far. Errors (kInvalidArgument): a null provider, a name that is empty or holds
  // whitespace, ',' or '=' (the characters of CLI EP lists), a name already taken (the message
  // suggests a free one), or a call after InitializeAll.
  Status Add(std::shared_ptr<ExecutionProvider> provider, EpConfig config = {},
             std::string name = {});

  // Calls Initialize(config) on every entry in order. On the first failure, shuts down the
  // entries initialized so far and returns the error prefixed with "ep '<name>'". With
  // `dropped` given, a failing entry is removed instead and its prefixed error appended there
  // (the last entry, the fallback, is never dropped).
  Status InitializeAll(std::vector<std::string>* dropped = nullptr);
  // Shuts down every initialized entry, last first. Safe to call twice.
  void ShutdownAll();

  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool initialized() const { return initialized_; }
  // The entry named `name`, or nullptr.
  const Entry* Find(std::string_view name) const;

 private:
  std::vector<Entry> entries_;
  bool initialized_ = false;
};

}  // namespace nxrt::ep
