// ep/ep_registry.cpp: the priority-ordered EP list (ep/ep_registry.h).
//
// Layer: nxrt_ep.
#include "ep/ep_registry.h"

#include <cctype>

namespace nxrt::ep {

EpRegistry::~EpRegistry() { ShutdownAll(); }

Status EpRegistry::Add(std::shared_ptr<ExecutionProvider> provider, EpConfig config,
                       std::string name) {
  if (provider == nullptr) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot register a null execution provider",
                      name.empty() ? std::string() : " as '" + name + "'");
  }
  if (initialized_) {
    return MakeStatus(StatusCode::kInvalidArgument, "cannot add ep '",
                      name.empty() ? provider->type_name() : name,
                      "' after the registry was initialized");
  }
  if (name.empty()) name = provider->type_name();
  if (name.empty()) {
    return MakeStatus(StatusCode::kInvalidArgument,
                      "an execution provider needs a name; its type name is empty");
  }
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '=') {
      return MakeStatus(StatusCode::kInvalidArgument, "ep name '", name,
                        "' contains whitespace, ',' or '='; use letters, digits, '_', '-', "
                        "'.' or ':'");
    }
  }
  if (Find(name) != nullptr) {
    std::string free_name;
    for (int k = 2;; ++k) {
      free_name = name + "_" + std::to_string(k);
      if (Find(free_name) == nullptr) break;
    }
    return MakeStatus(StatusCode::kInvalidArgument, "an ep named '", name,
                      "' is already registered; give this one another name, e.g. '", free_name,
                      "'");
  }
  entries_.push_back(Entry{std::move(name), std::move(provider), std::move(config), false});
  return Status::Ok();
}

Status EpRegistry::InitializeAll(std::vector<std::string>* dropped) {
  for (size_t i = 0; i < entries_.size();) {
    Entry& entry = entries_[i];
    if (entry.initialized) {
      ++i;
      continue;
    }
    Status status = entry.provider->Initialize(entry.config);
    if (!status.ok()) {
      status = status.WithContext("ep '" + entry.name + "'");
      if (dropped != nullptr && i + 1 < entries_.size()) {
        dropped->push_back(status.message());
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ShutdownAll();
      return status;
    }
    entry.initialized = true;
    ++i;
  }
  initialized_ = true;
  return Status::Ok();
}

void EpRegistry::ShutdownAll() {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (!it->initialized) continue;
    it->provider->Shutdown();
    it->initialized = false;
  }
  initialized_ = false;
}

const EpRegistry::Entry* EpRegistry::Find(std::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

}  // namespace nxrt::ep
