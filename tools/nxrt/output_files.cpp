// tools/nxrt/output_files.cpp: see output_files.h.
#include "output_files.h"

#include <cstdio>
#include <fstream>

#include "nxrt/tensor_io.h"

namespace nxrt::cli {
namespace {

constexpr size_t kMaxStem = 120;
constexpr size_t kKeptPrefix = 100;

bool Safe(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

uint64_t Fnv1a64(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : text) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::string SafeFileStem(std::string_view name) {
  std::string stem;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (Safe(c) && !(i == 0 && c == '.')) {
      stem += c;
      continue;
    }
    char escaped[4];
    std::snprintf(escaped, sizeof escaped, "%%%02X",
                  static_cast<unsigned>(static_cast<uint8_t>(c)));
    stem += escaped;
  }
  if (stem.size() <= kMaxStem) return stem;
  size_t cut = kKeptPrefix;
  // Do not split an escape: back off to its '%' when one of the last two bytes is it.
  if (stem[cut - 1] == '%') cut -= 1;
  else if (stem[cut - 2] == '%') cut -= 2;
  char hash[24];
  std::snprintf(hash, sizeof hash, "~%016llx", static_cast<unsigned long long>(Fnv1a64(name)));
  return stem.substr(0, cut) + hash;
}

Result<std::vector<WrittenOutput>> WriteOutputs(const std::filesystem::path& dir,
                                                const std::string& model,
                                                const std::vector<NamedValue>& outputs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return MakeStatus(StatusCode::kIoError, "cannot make the folder '", dir.string(),
                      "': ", ec.message());
  }
  std::vector<WrittenOutput> written;
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const NamedValue& out : outputs) {
    WrittenOutput w{out.name, "", ""};
    nlohmann::ordered_json entry;
    entry["name"] = out.name;
    if (out.value.is_tensor()) {
      const std::string file = SafeFileStem(out.name) + ".npy";
      w.file = (dir / file).string();
      NXRT_RETURN_IF_ERROR(WriteNpy(w.file, out.value.tensor()));
      entry["file"] = file;
      entry["dtype"] = DataTypeName(out.value.tensor().dtype());
      entry["shape"] = out.value.tensor().shape();
    } else {
      w.why_not = out.value.Description() + " is not a tensor; .npy holds tensors only";
      entry["file"] = nullptr;
      entry["why_not"] = w.why_not;
    }
    entries.push_back(std::move(entry));
    written.push_back(std::move(w));
  }
  nlohmann::ordered_json manifest;
  manifest["model"] = model;
  manifest["mapping"] =
      "file = name with each byte outside [A-Za-z0-9_.-] (and a leading '.') as %XX, "
      "names past 120 bytes cut to 100 + '~' + FNV-1a-64 hex, then .npy (docs/cli.md)";
  manifest["outputs"] = std::move(entries);
  const std::filesystem::path path = dir / "manifest.json";
  std::ofstream file(path);
  file << manifest.dump(2) << "\n";
  file.close();
  if (!file) {
    return MakeStatus(StatusCode::kIoError, "cannot write '", path.string(), "'");
  }
  return written;
}

}  // namespace nxrt::cli
