// tests/fuzz/replay_main.cpp: main() for a fuzz target built without libFuzzer (any compiler).
//
//   TARGET FILE_OR_FOLDER...          replay: every file (folders: every file inside, sorted)
//                                     through LLVMFuzzerTestOneInput once, as libFuzzer runs a
//                                     crash file. A file that crashes kills the process, so
//                                     CTest fails on it.
//   TARGET --mutate=N [--seed=S] --out=DIR SEED_FOLDER...
//                                     random mode: N cases, each a seed model changed by the
//                                     structure-aware mutator (onnx_mutator.h) one to four
//                                     times, run in turn. Each case is written to DIR/current
//                                     before it runs, so a driver script that sees the process
//                                     die keeps that file as the reproducer. No coverage
//                                     feedback: for compilers without libFuzzer and for long
//                                     campaigns beside the coverage-guided one.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_mutator.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string ReadAll(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// No byte-level fallback without libFuzzer: bytes that do not parse stay as they are.
size_t KeepBytes(uint8_t*, size_t size, size_t) { return size; }

int Mutate(long cases, uint64_t seed, const std::filesystem::path& out,
           const std::vector<std::filesystem::path>& seeds) {
  std::vector<std::string> corpus;
  for (const auto& file : seeds) corpus.push_back(ReadAll(file));
  if (corpus.empty()) {
    std::fprintf(stderr, "no seed files\n");
    return 2;
  }
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> buffer;
  const std::filesystem::path current = out / "current";
  for (long i = 0; i < cases; ++i) {
    const std::string& base = corpus[rng() % corpus.size()];
    const size_t max_size = base.size() * 2 + 4096;
    buffer.assign(base.begin(), base.end());
    buffer.resize(max_size);
    size_t size = base.size();
    const int rounds = 1 + static_cast<int>(rng() % 4);
    for (int r = 0; r < rounds; ++r) {
      size = nxrt::fuzz::MutateModel(buffer.data(), size, max_size,
                                     static_cast<unsigned>(rng()), &KeepBytes);
    }
    {
      std::ofstream file(current, std::ios::binary | std::ios::trunc);
      file.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(size));
    }
    LLVMFuzzerTestOneInput(buffer.data(), size);
    if ((i + 1) % 1000 == 0) std::fprintf(stderr, "cases %ld\n", i + 1);
  }
  std::filesystem::remove(current);
  std::printf("ran %ld mutated cases\n", cases);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  long cases = -1;
  uint64_t seed = 1;
  std::filesystem::path out = ".";
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--mutate=")) {
      cases = std::stol(std::string(arg.substr(9)));
    } else if (arg.starts_with("--seed=")) {
      seed = std::stoull(std::string(arg.substr(7)));
    } else if (arg.starts_with("--out=")) {
      out = std::filesystem::absolute(std::string(arg.substr(6)));
    } else {
      const std::filesystem::path path = std::filesystem::absolute(argv[i]);
      if (std::filesystem::is_directory(path)) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
          if (entry.is_regular_file()) files.push_back(entry.path());
        }
      } else {
        files.push_back(path);
      }
    }
  }
  std::sort(files.begin(), files.end());
  LLVMFuzzerInitialize(&argc, &argv);  // changes the working folder: paths are absolute above
  if (cases >= 0) return Mutate(cases, seed, out, files);
  for (const std::filesystem::path& file : files) {
    const std::string bytes = ReadAll(file);
    std::fprintf(stderr, "%s\n", file.filename().c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu files\n", files.size());
  return files.empty() ? 1 : 0;
}
