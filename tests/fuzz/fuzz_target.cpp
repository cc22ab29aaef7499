// tests/fuzz/fuzz_target.cpp: the shared part of the fuzz targets (see fuzz_target.h) and, in
// libFuzzer builds, the structure-aware mutator hook.
#include "fuzz_target.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "onnx_mutator.h"

namespace nxrt::fuzz {

const std::filesystem::path& EmptyFolder() {
  static const std::filesystem::path folder = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "nxrt_fuzz_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::filesystem::current_path(pattern);
    return std::filesystem::path(pattern);
  }();
  return folder;
}

void CheckMessage(const Status& status) {
  if (status.ok()) return;
  if (status.code() == StatusCode::kInternal || status.message().empty()) {
    std::fprintf(stderr, "fuzz target: unexpected status: %s\n", status.ToString().c_str());
    std::abort();
  }
}

}  // namespace nxrt::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nxrt::fuzz::EmptyFolder();
  return 0;
}

#ifdef NXRT_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return nxrt::fuzz::MutateModel(data, size, max_size, seed, &LLVMFuzzerMutate);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2, uint8_t* out,
                                            size_t max_out_size, unsigned int seed) {
  return nxrt::fuzz::CrossOverModels(data1, size1, data2, size2, out, max_out_size, seed);
}
#endif
